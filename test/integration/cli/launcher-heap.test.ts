/**
 * The launchers start Node 24 with `--min-semi-space-size=16`: V8's young generation starts at 16 MB
 * instead of growing from 1 MB by scavenges. A one-shot verb allocates ~10-15 MB as its modules load;
 * the installed `runs list` ran five scavenges on the way (~45 ms of its CPU under load, docs/scaling.md),
 * none with the flag. Only a flag on the command line does it (V8 sizes the heap as it starts), so the
 * launchers pass it: bin/toolsmith (the POSIX command) and bin/toolsmith.mjs's child on a Node < 24.
 * Counted by a probe in NODE_OPTIONS (`--import`): the minor GCs of the process, and its execArgv.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const machineNode = '/usr/bin/node';
const major = Number(
  spawnSync(machineNode, ['-p', 'process.versions.node.split(".")[0]']).stdout?.toString() ?? 0,
);
const ws = tempWorkspace('toolsmith-launcher-heap-');
const dir = mkdtempSync(join(tmpdir(), 'toolsmith-launcher-heap-'));
const probe = join(dir, 'gc-probe.mjs');
writeFileSync(
  probe,
  `const { PerformanceObserver, constants } = await import('node:perf_hooks');
let minor = 0;
new PerformanceObserver((l) => {
  for (const e of l.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) minor++;
}).observe({ entryTypes: ['gc'] });
process.on('exit', () => process.stderr.write('GC-PROBE ' + JSON.stringify({ minor, execArgv: process.execArgv, node: process.versions.node }) + '\\n'));
`,
);
afterAll(() => {
  removeWorkspace(ws);
  rmSync(dir, { recursive: true, force: true });
});

type Probe = { minor: number; execArgv: string[]; node: string };

/** Runs `runs list` with `cmd`; its output and each Node process's probe line (the launcher's too). */
function runsList(cmd: string, args: string[]): { out: string; probes: Probe[] } {
  const r = spawnSync(cmd, [...args, '--workspace', ws, 'runs', 'list'], {
    encoding: 'utf8',
    env: {
      ...process.env,
      NODE_OPTIONS: `--import ${probe}`,
      TOOLSMITH_HOME: join(dir, 'home'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      TOOLSMITH_BACKEND: 'process',
      PATH: `/usr/bin:${process.env['PATH']}`,
    },
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  const probes = [...r.stderr.matchAll(/^GC-PROBE (.*)$/gm)].map((m) => JSON.parse(m[1]!) as Probe);
  return { out: r.stdout, probes };
}

describe("the launchers size V8's young generation for a one-shot verb", () => {
  it('bin/toolsmith: Node 24 with --min-semi-space-size=16, fewer scavenges than without, the same answer', () => {
    const plain = runsList(join(repoRoot, 'node_modules/.bin/node'), [join(repoRoot, 'bin/start.mjs')]);
    const launched = runsList('sh', [join(repoRoot, 'bin/toolsmith')]);
    expect(launched.out).toBe(plain.out);
    expect(launched.out).toMatch(/^0 of 0 run\(s\)$/m);
    expect(plain.probes).toHaveLength(1);
    expect(launched.probes).toHaveLength(1);
    expect(plain.probes[0]!.execArgv).not.toContain('--min-semi-space-size=16');
    expect(launched.probes[0]!.execArgv).toContain('--min-semi-space-size=16');
    expect(launched.probes[0]!.minor).toBeLessThan(plain.probes[0]!.minor);
  }, 180_000);

  it.runIf(major >= 20 && major < 24)(
    "bin/toolsmith.mjs on the machine's Node < 24: its Node 24 child gets the flag",
    () => {
      const r = runsList(machineNode, [join(repoRoot, 'bin/toolsmith.mjs')]);
      expect(r.out).toMatch(/^0 of 0 run\(s\)$/m);
      const child = r.probes.find((p) => Number(p.node.split('.')[0]) >= 24);
      expect(child?.execArgv).toContain('--min-semi-space-size=16');
    },
    180_000,
  );
});
