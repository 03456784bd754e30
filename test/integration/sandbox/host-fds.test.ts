/**
 * The process level and the descriptors its host process was handed (docs/security.md, "Every job
 * alone"): Toolsmith started with a descriptor it did not open and that has no close-on-exec (a shell's
 * redirection, a make jobserver's pipe, a terminal multiplexer's) passed it on to bubblewrap, which passes
 * every descriptor on: the worker held it, and so did every job it forked. tools.py, as it loaded, and a
 * job wrote to a file of the host through it (failed before). Now the worker is spawned with /dev/null at
 * each such number.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';

it('a descriptor the host process was handed reaches neither tools.py as it loads nor a job (process level)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolsmith-handed-'));
  const target = join(dir, 'host-file');
  const fd = openSync(target, 'w');
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(
        process.execPath,
        [join(repoRoot, 'test/integration/sandbox/support/handed-fd-owner.ts')],
        // fd 100 of the child: the host file, as a shell's `100>file` would hand it (Node marks a
        // few low descriptors it finds at its start close-on-exec, never these)
        {
          stdio: ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(97).fill('ignore'), fd],
          cwd: repoRoot,
        },
      );
      let stdout = '';
      let stderr = '';
      p.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`))));
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as { data: unknown; error: unknown };
    expect(result.error).toBeNull();
    // (before: {"load": "<target>", "job": "<target>"}, and the file held both lines)
    expect(result.data).toEqual({ load: '/dev/null', job: '/dev/null' });
    expect(readFileSync(target, 'utf8')).toBe('');
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
