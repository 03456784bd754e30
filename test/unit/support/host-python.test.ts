/**
 * The tests' host Python (test/support/host-python.ts) writes no byte-code beside the modules it
 * imports: its `path` is often the clone's sandbox-images/python, and a run left
 * `toolsmith_worker/__pycache__` there (js-jobns.test.ts's filter check).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostPython } from '../../support/host-python.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('the host Python of the tests', () => {
  it('imports a package from `path` and leaves no __pycache__ beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolsmith-host-python-'));
    made.push(dir);
    mkdirSync(join(dir, 'pkg'));
    writeFileSync(join(dir, 'pkg', '__init__.py'), '');
    writeFileSync(join(dir, 'pkg', 'mod.py'), 'VALUE = 41 + 1\n');
    const r = hostPython('from pkg import mod\nprint(mod.VALUE)', [], { path: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('42');
    expect(existsSync(join(dir, 'pkg', '__pycache__'))).toBe(false);
  });
});
