/**
 * `toolsmith serve` on a checkout whose renderer is not built: it builds it (electron-vite, into
 * $TOOLSMITH_OUT_DIR here so the repository's out/ is left alone) and serves the workbench page,
 * instead of answering "not found".
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sourceBin } from '../../support/cli-bin.ts';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const out = mkdtempSync(join(tmpdir(), 'toolsmith-out-'));
const ws = tempWorkspace('toolsmith-serve-');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.pid && child.exitCode === null) child.kill('SIGTERM');
  removeWorkspace(out);
  removeWorkspace(ws);
});

describe('serve without a renderer build', () => {
  it('builds the renderer, then serves the workbench page', async () => {
    expect(existsSync(join(out, 'renderer', 'index.html'))).toBe(false);
    child = spawn(...toolsmithArgv(ws, ['serve'], sourceBin), {
      env: { ...process.env, TOOLSMITH_OUT_DIR: out, TOOLSMITH_HOME: join(out, 'home') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child?.stdout?.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /Toolsmith workbench: (\S+)/.exec(stdout);
        if (m?.[1]) resolve(m[1]);
      });
      child?.on('exit', (code) => reject(new Error(`serve exited ${code}:\n${stderr}`)));
    });
    expect(stderr).toContain('the workbench is not built yet; building it');
    expect(stderr).toContain(`built ${join(out, 'renderer')}`);
    expect(existsSync(join(out, 'renderer', 'index.html'))).toBe(true);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  }, 600_000);
});
