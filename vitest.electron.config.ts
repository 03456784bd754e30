import { defineConfig } from 'vitest/config';

/** `npm run test:electron`: the desktop app through Playwright's Electron driver (needs the binary). */
export default defineConfig({
  test: {
    include: ['test/electron/**/*.electron.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
