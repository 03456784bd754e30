import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// TOOLSMITH_OUT_DIR builds somewhere else than out/ (a test of `serve` building a missing renderer).
const out = process.env['TOOLSMITH_OUT_DIR']
  ? resolve(process.env['TOOLSMITH_OUT_DIR'])
  : resolve(__dirname, 'out');

export default defineConfig({
  main: {
    build: {
      outDir: resolve(out, 'main'),
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          // The ParallelValidator's thread entry (src-main/infra/validate/parallel.ts loads it by this name).
          'validate-thread': resolve(__dirname, 'src-main/infra/validate/thread.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(out, 'preload'),
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(out, 'renderer'),
      rollupOptions: { input: { index: resolve(__dirname, 'src-renderer/index.html') } },
    },
  },
});
