/**
 * A process whose stop signal's close did not end within its grace (cli/signals.ts `exitOnStop`: a
 * sandbox engine or MCP server that does not answer holds the close) exits without its pools' dispose,
 * which is what removed its entry as a running instance (`instances/<id>.json` in the data folder,
 * infra/sandbox/installation.ts). The entry is removed at its exit all the same. Before, it stayed: read
 * as a dead process's only while no other process had its pid (a later process given that pid made its
 * containers look alive to the next start's sweep, which left them, and to `pool status`).
 * The child is a fresh Node 24 with the real Installation and the real stop handling; its close never
 * ends (as one held by an engine that took the connection and never answers).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';

const node = join(repoRoot, 'node_modules/.bin/node');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-stop-entries-'));
  const src = (p: string) => JSON.stringify(pathToFileURL(join(repoRoot, p)).href);
  writeFileSync(
    join(dir, 'child.mjs'),
    `import { Installation } from ${src('src-main/infra/sandbox/installation.ts')};
import { exitOnStop, onUnhandledStop } from ${src('src-main/cli/signals.ts')};
const installation = new Installation(process.env.DATA);
installation.register();
// main's handler (cli/main.ts), with a close that never ends
onUnhandledStop((sig) => exitOnStop(sig, () => new Promise(() => {}), (t) => process.stderr.write(t)));
process.stdout.write(installation.instance + '\\n');
setInterval(() => {}, 60_000);
`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a stop whose close does not end within its grace', () => {
  for (const [sig, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)
    it(`${sig}: exits ${code} saying so, and its entry as a running instance is gone`, async () => {
      const data = mkdtempSync(join(dir, 'data-'));
      const child = spawn(node, [join(dir, 'child.mjs')], {
        env: { ...process.env, DATA: data },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      // Registered: its entry names its pid.
      const instance = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
        child.on('exit', () => reject(new Error(`the child ended before it registered: ${err}`)));
      });
      const entry = join(data, 'instances', `${instance}.json`);
      expect(JSON.parse(readFileSync(entry, 'utf8'))).toMatchObject({ pid: child.pid });

      child.kill(sig);
      expect(await exited, err).toBe(code);
      expect(err).toContain(`toolsmith: ${sig}: the close did not end within 3 s`);
      // Before: the entry stayed, with the pid of a process that is gone.
      expect(existsSync(entry)).toBe(false);
      expect(readdirSync(join(data, 'instances'))).toEqual([]);
    }, 60_000);
});
