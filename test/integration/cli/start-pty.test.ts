/**
 * `npm start` (scripts/start.mjs) serving the workbench to a browser, stopped by Ctrl-C at a real
 * terminal (a pty made by `script` of util-linux): `toolsmith serve` gets the SIGINT once. The terminal
 * sends Ctrl-C's SIGINT to its whole foreground process group, the launcher and serve alike; the
 * launcher passed it on as well, so serve got it twice, and the second, arriving while serve closed
 * (runs recorded, containers removed), was taken for a stop no command handles: main's handler closed
 * again and exited at once, cutting the first close short. Each process counts the signals it gets
 * through a small `--import` module (NODE_OPTIONS), which also holds serve open after its SIGINT until
 * the test has seen the launcher's own SIGINT handled (so a SIGINT passed on would have reached serve).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const node = join(repoRoot, 'node_modules/.bin/node');
let dir: string;
let ws: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-start-pty-'));
  ws = tempWorkspace('toolsmith-start-pty-ws-');
  // Appends "<name> <signal>" for each stop signal once the process's own handlers ran (and "<name>
  // exit <code>"); serve ("toolsmith.mjs") stays open after a signal until the file `release` exists.
  writeFileSync(
    join(dir, 'spy.mjs'),
    `const { appendFileSync, existsSync } = process.getBuiltinModule('node:fs');
const name = (process.argv[1] ?? '').split('/').pop();
const log = (t) => appendFileSync(process.env.SPY_LOG, name + ' ' + t + '\\n');
let held = false;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'])
  process.on(sig, () => {
    // (after the process's own handlers of this signal: the launcher's passing on included)
    setImmediate(() => log(sig));
    if (name !== 'toolsmith.mjs' || held) return;
    held = true;
    let seen = 0;
    const t = setInterval(() => existsSync(process.env.SPY_RELEASE) && ++seen === 3 && clearInterval(t), 20);
  });
process.on('exit', (c) => log('exit ' + c));
`,
  );
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

describe('npm start (scripts/start.mjs) at a terminal', () => {
  it('Ctrl-C reaches serve once: the launcher does not pass on what the terminal sent it too', async () => {
    // (util-linux's `script` makes the terminal; missing, this fails rather than skips)
    expect(spawnSync('script', ['--version']).status, 'util-linux `script` is needed (bsdutils)').toBe(0);
    const log = join(dir, 'signals.log');
    const release = join(dir, 'release');
    // `exec`: `script` runs the command with $SHELL -c (or /bin/sh); dash, Debian's /bin/sh, stays as
    // the launcher's parent and, a non-interactive shell, dies of the terminal's SIGINT, so `script`
    // said 130 whatever the launcher did (a CI whose SHELL is unset failed so; bash execs a lone command).
    const cmd = `exec ${node} ${join(repoRoot, 'scripts/start.mjs')} --workspace ${ws}`;
    const child = spawn('script', ['-qfec', cmd, '/dev/null'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_OPTIONS: `--import ${join(dir, 'spy.mjs')}`,
        SPY_LOG: log,
        SPY_RELEASE: release,
        TOOLSMITH_HOME: join(dir, 'home'),
        XDG_CACHE_HOME: join(dir, 'cache'),
        TERM: 'dumb',
        // (`script` runs the command with $SHELL -c: a login shell of none, /usr/sbin/nologin, started
        // nothing; POSIX sh whatever SHELL says, and `exec` above makes it leave the chain)
        SHELL: '/bin/sh',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n') : []);
    try {
      // Serving (the URL is the last line), then Ctrl-C typed at the terminal.
      await expect
        .poll(() => out, { timeout: 240_000, interval: 100 })
        .toMatch(/http:\/\/127\.0\.0\.1:\d+\//);
      child.stdin.write('\x03');
      // The launcher has handled its SIGINT (and would have passed it on) while serve is held open.
      await expect.poll(lines, { timeout: 60_000, interval: 50 }).toContain('start.mjs SIGINT');
      await expect.poll(lines, { timeout: 60_000, interval: 50 }).toContain('toolsmith.mjs SIGINT');
      writeFileSync(release, '');
      const code = await exited;
      expect(code, `${out}\n${lines().join('\n')}`).toBe(0);
    } finally {
      writeFileSync(release, '');
      child.kill('SIGKILL');
    }
    const got = lines();
    // Before: "toolsmith.mjs SIGINT" twice (the terminal's, then the launcher's).
    expect(
      got.filter((l) => l === 'toolsmith.mjs SIGINT'),
      got.join('\n'),
    ).toHaveLength(1);
    expect(got).toContain('toolsmith.mjs exit 0');
    expect(got).toContain('start.mjs exit 0');
  }, 300_000);
});
