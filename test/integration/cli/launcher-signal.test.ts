/**
 * `node bin/toolsmith.mjs` on a Node older than 24 (the machine's Node 20) runs the Node 24 the clone
 * or package ships as a child. A SIGINT sent to that launcher alone (`kill -INT PID`, a process
 * manager, `timeout -s INT`; no terminal whose Ctrl-C would reach the child too) stops the command as
 * Ctrl-C does: the job cancelled, exit 130. Before, the launcher swallowed it and `exec` of a script
 * that loops ran on to its whole time limit (then exit 1, "ran past its time limit").
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const machineNode = '/usr/bin/node';
const major = Number(
  spawnSync(machineNode, ['-p', 'process.versions.node.split(".")[0]']).stdout?.toString() ?? 0,
);
const ws = tempWorkspace('toolsmith-launcher-signal-');
afterAll(() => removeWorkspace(ws));

describe('the launcher on Node < 24', () => {
  it.runIf(major >= 20 && major < 24)(
    'passes a SIGINT sent to it alone to the command: exec cancels its job and exits 130',
    async () => {
      const script = join(ws, 'loop.py');
      writeFileSync(script, 'while True:\n    pass\nemit_result(1)\n');
      const started = Date.now();
      // detached: a session of its own, with no terminal (as under a process manager).
      const child = spawn(
        machineNode,
        [
          join(repoRoot, 'bin/toolsmith.mjs'),
          '--workspace',
          ws,
          'exec',
          script,
          '--sandbox',
          'ecommerce',
          '--timeout',
          '120',
        ],
        { detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      // Whether the job has started or not yet, SIGINT stops the command.
      await new Promise((r) => setTimeout(r, 8_000));
      child.kill('SIGINT');
      const code = await exited;
      expect(code, out).toBe(130);
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(out).not.toMatch(/ran past its/);
    },
    150_000,
  );
});
