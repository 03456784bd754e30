/**
 * `serve` on a fresh checkout: the renderer has not been built yet, so it builds it (electron-vite,
 * as `npm run build` does) before serving, instead of answering "not found".
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where builds go: $TOOLSMITH_OUT_DIR, else `<repo>/out`. */
export const outDir = (root: string): string => process.env['TOOLSMITH_OUT_DIR'] ?? join(root, 'out');

export const hasRenderer = (staticDir: string): boolean => existsSync(join(staticDir, 'index.html'));

/** Runs `electron-vite build` in `root`; resolves when it succeeds, rejects with its last output lines. */
export function buildRenderer(root: string, log: (line: string) => void): Promise<void> {
  const bin = join(root, 'node_modules', '.bin', 'electron-vite');
  if (!existsSync(bin))
    return Promise.reject(new Error(`${bin} is missing: run \`npm ci\` in ${root}, then \`npm run build\``));
  return new Promise((resolve, reject) => {
    const p = spawn(bin, ['build'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    const tail: string[] = [];
    const onData = (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line.trim()) continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        if (/built in|error/i.test(line)) log(line.trim());
      }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('error', reject);
    p.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`electron-vite build exited ${code}:\n${tail.join('\n')}`)),
    );
  });
}
