import { fileURLToPath } from 'node:url';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { instrumentedImages } from '../../../bench/support/stages.ts';
import { hostPython } from '../../support/host-python.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('bench:stages instrumentation', () => {
  it('finds every anchor once in the current worker and leaves valid Python with each stage in order', () => {
    const dir = instrumentedImages(join(root, 'sandbox-images'));
    made.push(dir);
    const pkg = join(dir, 'python', 'toolsmith_worker');
    // Byte-compiles (in memory: nothing is written to the copy) every file of the stamped package.
    const files = readdirSync(pkg).filter((f) => f.endsWith('.py'));
    const compiled = hostPython(
      'import sys\nfor f in sys.argv[1:]: compile(open(f).read(), f, "exec")',
      files.map((f) => join(pkg, f)),
    );
    expect(compiled.status, compiled.stderr).toBe(0);
    const stamped = files.map((f) => readFileSync(join(pkg, f), 'utf8')).join('\n');
    const order = [
      'clone to first line',
      'after-fork hooks',
      'clone and after-fork hooks (C loop)',
      'id maps',
      'mounts and /proc',
      'rooted: before its tree',
      'rooted: root bound',
      'rooted: tree mounted',
      'rooted: chroot',
      'rooted: uid',
      'capabilities',
      'seccomp filter',
      'walls line',
      'tools.py load',
      'child setup',
      'runtime wall',
      'rehearsal',
      'job read',
      'job run',
    ];
    for (const name of order) expect(stamped).toContain(`_toolsmith_stage(${JSON.stringify(name)})`);
    expect(stamped).toContain('TOOLSMITH_STAGES');
    // The product's own files are untouched.
    expect(readFileSync(join(root, 'sandbox-images/python/toolsmith_worker/jobns.py'), 'utf8')).not.toContain(
      '_toolsmith_stage',
    );
  });

  it('names the file and the text to update when an anchor is gone, and leaves no copy behind', () => {
    // A worker whose clone no longer calls the after-fork hooks where the stamps expect them.
    const changed = mkdtempSync(join(tmpdir(), 'toolsmith-stages-test-'));
    made.push(changed);
    cpSync(join(root, 'sandbox-images'), changed, { recursive: true });
    const jobns = join(changed, 'python/toolsmith_worker/jobns.py');
    writeFileSync(
      jobns,
      readFileSync(jobns, 'utf8').replace(
        'after_child()\n        return 0',
        'after_child()\n        return  0',
      ),
    );
    const before = readdirSync(tmpdir()).filter(
      (d) => d.startsWith('toolsmith-stages-') && !d.includes('test'),
    ).length;
    expect(() => instrumentedImages(changed)).toThrow(
      /the anchor .*after_child.* is not found once in jobns\.py: update bench\/support\/stages\.ts/,
    );
    expect(
      readdirSync(tmpdir()).filter((d) => d.startsWith('toolsmith-stages-') && !d.includes('test')).length,
    ).toBe(before);
  });
});
