/**
 * Runs kept aside at a close during a copy over the store (RunEvents.keepAside) when the disk fills
 * between two runs' export files: the workspace on a small tmpfs, the disk full but for a little room,
 * which one run's export fits in and the next one's does not. Only the run whose file could not be
 * written is named lost; its partial file is removed; the runs after it are still written, and the line
 * says where the kept ones are. Before, the first failure ended the keep aside: a truncated file was
 * left and every run was said lost. Needs root (mount).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { runStarted } from '../../support/run-records.ts';
import { copyGoingOn } from './support/copy-going-on.ts';
import { otherStore } from './support/other-store.ts';
import { stderrSaid } from './support/stderr-said.ts';
import { mountSmallDisk, type SmallDisk } from './support/small-disk.ts';

let root: string;
let disk: string;
let said: string[];
let tmpfs: SmallDisk;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'toolsmith-keep-aside-full-'));
  tmpfs = mountSmallDisk('toolsmith-keep-aside-full-disk-', 4);
  disk = tmpfs.root;
  said = stderrSaid();
});
afterEach(() => {
  vi.restoreAllMocks();
  tmpfs.remove();
  rmSync(root, { recursive: true, force: true });
});

it('a close during a copy whose disk fills between two runs’ exports names only the run lost, leaves no partial file, and says where the others are', async () => {
  const foreign = otherStore(root);
  mkdirSync(join(disk, 'ws', '.toolsmith'), { recursive: true });
  const file = join(disk, 'ws', '.toolsmith', 'runs.db');
  const store = new RunStore(file);
  const copier = copyGoingOn(foreign, file);
  let small = '';
  let large = '';
  let last = '';
  try {
    // Kept in that order: a run that ended (its end only in the log), one of ~300 KB, one in flight.
    small = store.createRun(runStarted('a small run that ended'));
    store.append(small, 'run_finished', { status: 'failed', error: 'e' });
    large = store.createRun(runStarted('a large run in flight'));
    store.append(large, 'prompt', {
      n: 1,
      kind: 'first',
      system: 'x'.repeat(300_000),
      user: 'u',
      sections: [],
      hints: [],
    });
    last = store.createRun(runStarted('a small run in flight'));
    store.checkFiles();
    await copier.copied;
    store.checkFiles(); // (seen, not acted on: the file keeps changing until after the close)
    // The disk full but for 64 KB: room for a small run's export, not for the large one's.
    const room = join(disk, 'room');
    writeFileSync(room, Buffer.alloc(64 * 1024, 1));
    tmpfs.fill();
    rmSync(room);
    store.close();
  } finally {
    copier.kill();
  }
  const line = said.join('');
  expect(line).toMatch(
    /was still being overwritten in place as this process \(pid \d+\) closed it: 3 run\(s\) of this process \([^)]*\): 2 are kept in \S+runs\.db\.log-\S+ \(one export per run/,
  );
  const aside = /2 are kept in (\S+runs\.db\.log-\S+) \(one export per run[^)]*\): (\S+), (\S+); /.exec(line);
  // The kept runs named where they are (before: all three said lost, though the first file was whole).
  expect([aside?.[2], aside?.[3]]).toEqual([small, last]);
  expect(line).toMatch(
    new RegExp(`; 1 could not be kept aside \\(ENOSPC[^)]*\\) and are lost: ${large}(\\n|$)`),
  );
  // No partial file: the kept runs' exports only (before: a truncated export of the large run).
  const dir = aside?.[1] ?? '';
  expect(readdirSync(dir).sort()).toEqual([`${small}.json`, `${last}.json`].sort());
  const back = new RunStore(join(root, 'back.db'));
  try {
    const a = back.import(JSON.parse(readFileSync(join(dir, `${small}.json`), 'utf8')));
    expect(back.get(a)).toMatchObject({ status: 'failed', error: 'e' });
    const c = back.import(JSON.parse(readFileSync(join(dir, `${last}.json`), 'utf8')));
    expect(back.summary(c)?.task).toBe('a small run in flight');
  } finally {
    back.close();
  }
}, 60_000);
