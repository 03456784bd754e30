/**
 * `node_modules/.bin/vitest` started by a person whose PATH has the machine's Node 20 first: its
 * `#!/usr/bin/env node` runs vitest on Node 20. Before, every file that reached the run store failed on
 * "No such built-in module: node:sqlite" and vitest's reporter crashed on Node 20 ("Map.groupBy is not
 * a function") without saying so; the config now runs the same command on the clone's Node 24
 * (test/support/node-24.ts). The run here is a nested vitest of one unit file that opens a node:sqlite
 * run store.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';

/** Debian's Node 20, which CI machines have (the install test puts it first on PATH too). */
const machineNode = '/usr/bin/node';

it('node_modules/.bin/vitest with Node 20 first on PATH runs the tests on Node 24', async () => {
  const major = Number(
    spawnSync(machineNode, ['-p', 'process.versions.node.split(".")[0]']).stdout.toString(),
  );
  expect(major).toBeLessThan(24);
  const dir = mkdtempSync(join(tmpdir(), 'older-node-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(machineNode, join(bin, 'node'));
  const report = join(dir, 'report.json');
  // The person's PATH: their node first, the clone's node_modules/.bin nowhere (no npm or npx started it).
  const path = [
    bin,
    ...(process.env['PATH'] ?? '').split(delimiter).filter((p) => !p.includes('node_modules')),
  ];
  const child = spawn(
    join(repoRoot, 'node_modules', '.bin', 'vitest'),
    [
      'run',
      '--project',
      'unit',
      'test/unit/store/run-store-closed.test.ts',
      '--reporter=json',
      '--outputFile',
      report,
    ],
    { cwd: repoRoot, env: { ...process.env, PATH: path.join(delimiter) }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  expect(code, out).toBe(0);
  const result = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
  };
  expect(result).toMatchObject({ numPassedTests: 1, numFailedTests: 0 });
  expect(out).toContain(`vitest started on ${machineNode}, v${major}.`);
}, 120_000);
