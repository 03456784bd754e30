/**
 * `toolsmith serve --open` as another user of the machine sees it: every command line is readable by
 * every user (`ps`, /proc/PID/cmdline), and the web front end's token is what keeps other processes out
 * of the workbench (docs/security.md, "Who is trusted"). The opener (`xdg-open`, here a stand-in on PATH
 * that records its arguments) must get no token; what it gets still opens the workbench in a real
 * Chromium, with the token, and is gone when serving stops.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../e2e/support/browser.ts';
import { sourceBin } from '../../support/cli-bin.ts';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-serve-open-'));
const ws = tempWorkspace('toolsmith-serve-open-ws-');
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.pid && child.exitCode === null) child.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
  removeWorkspace(ws);
});

const until = async <T>(what: () => T | undefined): Promise<T> => {
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('serve --open', () => {
  it("puts no token on the opener's command line; the page it opens reaches the workbench with it", async () => {
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    const recorded = join(tmp, 'opener-args');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > "${recorded}"\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const renderer = join(tmp, 'renderer');
    mkdirSync(renderer);
    writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>workbench</title><p>workbench</p>');
    child = spawn(...toolsmithArgv(ws, ['serve', '--open', '--renderer', renderer], sourceBin), {
      env: {
        ...process.env,
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        TOOLSMITH_HOME: join(tmp, 'home'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await until(() => /Toolsmith workbench: (\S+)/.exec(stdout)?.[1]);
    const token = new URL(url).searchParams.get('token') ?? '';
    expect(token.length).toBeGreaterThan(20);
    const args = (await until(() => (existsSync(recorded) ? readFileSync(recorded, 'utf8') : undefined)))
      .trim()
      .split('\n');
    // What any user of the machine reads in the opener's command line.
    expect(args.join(' ')).not.toContain(token);
    expect(args).toHaveLength(1);
    const page = args[0]!;
    // The file holding it is this user's alone.
    expect(statSync(page).mode & 0o777).toBe(0o600);
    expect(statSync(join(page, '..')).mode & 0o777).toBe(0o700);

    // Opened in a real browser, it lands on the workbench with the token: the API answers the page.
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(pathToFileURL(page).toString());
      await tab.waitForURL((u) => u.toString() === url);
      // (The page's own URL holds the token, as waited for above; the page calls the API with it.)
      const answer = await tab.evaluate(async (t) => {
        const r = await fetch('/api/workspace.info', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` },
          body: '{}',
        });
        return (await r.json()) as { ok: boolean };
      }, token);
      expect(answer.ok).toBe(true);
    } finally {
      await browser.close();
    }

    // Gone when serving stops.
    child.kill('SIGTERM');
    await new Promise((r) => child?.once('exit', r));
    expect(existsSync(page), stderr).toBe(false);
  }, 120_000);
});
