/**
 * A test's copy of a workspace (`copyWorkspace`, `tempWorkspace` in test/support/workspace.ts) takes
 * none of what the workspace's use left in it: a person who ran the CLI against their clone's
 * resources/workspace has its run store and log there, and a copy that took them gave a test the
 * person's runs and log lines (faults/disk-full.test.ts, on a 4 MB disk, ran out of room for its own
 * run's log lines after the person's 2 KB). What the product's own copy of the sample leaves out
 * (`copySample`) is left out here too.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyWorkspace, sampleWorkspace, tempWorkspace } from '../../support/workspace.ts';

const made: string[] = [];
afterEach(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A copy of the sample as a person's use leaves it: runs, a log, Python's byte-code caches. */
function usedWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'toolsmith-used-ws-'));
  made.push(ws);
  copyWorkspace(sampleWorkspace, ws);
  const write = (rel: string, text: string) => {
    mkdirSync(join(ws, rel, '..'), { recursive: true });
    writeFileSync(join(ws, rel), text);
  };
  write('.toolsmith/runs.db', 'the person’s runs');
  write('.toolsmith/runs.db-wal', 'the person’s runs');
  write('.toolsmith/runs.db-shm', 'the person’s runs');
  write('.toolsmith/logs/toolsmith.jsonl', '{"msg":"the person’s run"}\n');
  write('sandboxes/ecommerce/__pycache__/tools.cpython-311.pyc', 'bytes');
  return ws;
}

/** Every path under `dir`, relative to it. */
const tree = (dir: string): string[] =>
  (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split('\\').join('/')).sort();

describe('a test’s copy of a workspace', () => {
  it('leaves out the run store, the logs and the byte-code caches of a used workspace', () => {
    const used = usedWorkspace();
    const copy = mkdtempSync(join(tmpdir(), 'toolsmith-copy-'));
    made.push(copy);
    copyWorkspace(used, copy);
    const paths = tree(copy);
    expect(paths.filter((p) => /runs\.db|logs|__pycache__/.test(p))).toEqual([]);
    // the workspace itself is whole
    expect(paths).toContain('.toolsmith/config.toml');
    expect(paths).toContain('sandboxes/ecommerce/tools.py');
    expect(paths).toEqual(tree(sampleWorkspace).filter((p) => !/runs\.db|logs|__pycache__/.test(p)));
  });

  it('keeps a workspace whose own folder is named like what it leaves out', () => {
    const parent = mkdtempSync(join(tmpdir(), 'toolsmith-copy-'));
    made.push(parent);
    const from = join(parent, 'logs');
    copyWorkspace(sampleWorkspace, from);
    const copy = join(parent, 'copy');
    copyWorkspace(from, copy);
    expect(existsSync(join(copy, '.toolsmith', 'config.toml'))).toBe(true);
  });

  it('tempWorkspace: a copy of the sample without runs or logs, whatever the clone’s sample holds', () => {
    const ws = tempWorkspace();
    made.push(ws);
    expect(tree(ws).filter((p) => /runs\.db|logs|__pycache__/.test(p))).toEqual([]);
    expect(existsSync(join(ws, '.toolsmith', 'config.toml'))).toBe(true);
  });
});
