/**
 * The bubblewrap level is chosen by running the workers' exact command line, with the one bubblewrap
 * binary the workers then use. The faults: a bubblewrap that starts but cannot apply an argument the
 * workers need (the seccomp filter). It is a wrapper put
 * first on the PATH that refuses that argument (exit 1, as bubblewrap does on an unknown option), logs
 * every call, and otherwise runs the real one.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { ProcessWorkerFactory } from '../../../src-main/infra/sandbox/process.ts';
import { runPython, TEST_LIMITS, testBackend } from '../../support/sandbox.ts';
import { shellLine } from '../../support/toolsmith-process.ts';
import { repoRoot } from '../../support/workspace.ts';

const REAL = '/usr/bin/bwrap';
const toolsSource = readFileSync(join(repoRoot, 'test/fixtures/sandbox/tools.py'), 'utf8');
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
});

/** A process-level factory made while `bwrap` on the PATH refuses `refused`; its calls are logged. */
function withBwrapRefusing(refused: string): { factory: ProcessWorkerFactory; calls: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-fake-bwrap-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755); // the probe runs as nobody, the workers as uids of their own, when tests run as root
  const log = join(dir, 'calls');
  writeFileSync(log, '');
  chmodSync(log, 0o666);
  const script = join(dir, 'bwrap');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      // (the log's path quoted: a person's $TMPDIR may have a space in it)
      `echo "$*" >> ${shellLine([log])}`,
      `for a in "$@"; do [ "$a" = "${refused}" ] && { echo "bwrap: Unknown option ${refused}" >&2; exit 1; }; done`,
      `exec ${REAL} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(script, 0o755);
  const saved = process.env['PATH'];
  process.env['PATH'] = `${dir}:${saved ?? ''}`;
  try {
    const { memoryMb, pids, tmpfsMb } = TEST_LIMITS;
    const factory = new ProcessWorkerFactory({ ...imagePaths(), memoryMb, pids, tmpfsMb, noCgroups: true });
    cleanup.push(() => factory.dispose());
    return { factory, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  } finally {
    process.env['PATH'] = saved;
  }
}

async function runsAJob(factory: ProcessWorkerFactory) {
  const b = testBackend(factory, { toolsSource, pool: { minSize: 0, maxSize: 1 } });
  cleanup.push(() => b.dispose());
  return runPython(b, 'emit_result(add(a=40, b=2).data)\n', {
    sandbox: 's',
    tools: ['add'],
    timeoutMs: 20_000,
  });
}

describe('the bubblewrap probe runs what the workers run', () => {
  it('a bubblewrap that cannot apply the seccomp filter is not taken for the bubblewrap level', async () => {
    const { factory } = withBwrapRefusing('--seccomp');
    expect(factory.isolation).toBe('process');
    expect(await runsAJob(factory)).toMatchObject({ success: true, data: 42, isolation: 'process' });
  }, 60_000);

  it('the workers are started by the bubblewrap the probe ran, with its exact command line', async () => {
    const { factory, calls } = withBwrapRefusing('--no-such-option');
    expect(factory.isolation).toBe('bubblewrap');
    expect(factory.details).toContain('jobs in namespaces of their own');
    expect(factory.details).toContain('seccomp deny-list');
    const r = await runsAJob(factory);
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
    // The probe's command line is the worker's, but for the program it starts.
    const probe = calls().find((c) => c.endsWith('-- /usr/bin/true'));
    const worker = calls().find((c) => c.includes('worker.py'));
    expect(worker, 'the worker was started by the bubblewrap the probe ran').toBeDefined();
    expect(probe).toBeDefined();
    expect(worker!.slice(0, worker!.indexOf(' -- '))).toBe(probe!.slice(0, probe!.indexOf(' -- ')));
    // no --disable-userns: the fork server makes each job's user namespace (jobns.py)
    expect(worker).not.toContain('--disable-userns');
  }, 60_000);
});
