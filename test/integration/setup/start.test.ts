/**
 * `npm start` on a machine without an Electron binary: a quiet build (one line, not the build log), then
 * the browser front end on the port asked for, with the URL as the last line printed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const out = mkdtempSync(join(tmpdir(), 'toolsmith-start-out-'));
const noElectron = mkdtempSync(join(tmpdir(), 'toolsmith-no-electron-'));
const ws = tempWorkspace('toolsmith-start-');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.pid && child.exitCode === null) child.kill('SIGTERM');
  for (const d of [out, noElectron, ws]) removeWorkspace(d);
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** Starts `npm start` (scripts/start.mjs) on a free port; resolves once it printed the URL. */
async function start(): Promise<{ url: string; stdout: string; stderr: string; port: number }> {
  if (child?.pid && child.exitCode === null) {
    const old = child;
    await new Promise((resolve) => {
      old.once('exit', resolve);
      old.kill('SIGTERM');
    });
  }
  const port = await freePort();
  child = spawn(
    join(repoRoot, 'node_modules/.bin/node'),
    [join(repoRoot, 'scripts/start.mjs'), '--port', String(port)],
    {
      cwd: ws,
      env: {
        ...process.env,
        TOOLSMITH_OUT_DIR: out,
        TOOLSMITH_HOME: join(out, 'home'),
        // An Electron install whose binary is missing: the browser front end is served instead.
        ELECTRON_OVERRIDE_DIST_PATH: noElectron,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child?.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /Toolsmith workbench: (\S+)\n/.exec(stdout);
      if (m?.[1]) resolve(m[1]);
    });
    child?.on('exit', (code) => reject(new Error(`npm start exited ${code}:\n${stdout}\n${stderr}`)));
  });
  return { url, stdout, stderr, port };
}

describe('npm start without Electron', () => {
  it('builds quietly, then prints the URL last, on the --port given', async () => {
    const { url, stdout, stderr, port } = await start();
    const lines = stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe(`Toolsmith workbench: ${url}`);
    expect(lines.length).toBeLessThanOrEqual(5);
    expect(lines[0]).toMatch(/^Building the workbench… done in [\d.]+ s$/);
    expect(stdout + stderr).not.toMatch(/vite v\d|modules transformed|dist\/|\.js\s+\d/);
    expect(new URL(url).port).toBe(String(port));
    const page = await fetch(url);
    expect(page.status).toBe(200);
  }, 600_000);

  it('started again with no source changed, it does not build again', async () => {
    const { url, stdout } = await start();
    expect(stdout.split('\n')[0]).toBe(
      'Building the workbench… up to date (no source changed since the last build)',
    );
    expect((await fetch(url)).status).toBe(200);
  }, 600_000);
});
