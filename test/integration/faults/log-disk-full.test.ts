/**
 * The workspace's log on a full disk: a line that cannot be written must not fail what logged it (before,
 * sonic-boom's `error` event had no listener, so the ENOSPC was thrown out of the log call and a CLI verb
 * ended with "disk full: write failed: ENOSPC", naming no file). The lines are kept in memory up to a
 * bound and written in order once space returns; the failure is said once, naming the log file. Needs
 * root (a small tmpfs, as disk-full.test.ts).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, LOG_HELD_BYTES } from '../../../src-main/app/log.ts';
import { workspaceLogFile } from '../../../src-main/app/log-file.ts';
import { mountSmallDisk } from './support/small-disk.ts';
import type { SmallDisk } from './support/small-disk.ts';

let disk: SmallDisk;
let root: string;
const fillDisk = () => disk.fill();
const freeDisk = () => disk.free();

beforeAll(() => {
  disk = mountSmallDisk('toolsmith-logfull-');
  root = disk.root;
});

afterAll(() => disk?.remove());

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { msg: string }).msg);

describe('the workspace log on a full disk', () => {
  it('a line that cannot be written fails nothing; it is said once, naming the file; the lines are written in order once space returns', () => {
    const dataDir = join(root, 'a', '.toolsmith');
    mkdirSync(dataDir, { recursive: true });
    const warned: string[] = [];
    const log = createLogger(dataDir, 'info', (l) => warned.push(l));
    const file = workspaceLogFile(dataDir);
    log.info({}, 'before');
    fillDisk();
    try {
      // Before: the first of these threw "ENOSPC: no space left on device, write".
      // (lines larger than a page: a short one still fits in the file's last page)
      const pad = 'x'.repeat(5000);
      expect(() => {
        log.info({ pad }, 'during 1');
        log.info({ pad }, 'during 2');
        log.info({ pad }, 'during 3');
      }).not.toThrow();
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain(file);
      expect(warned[0]).toMatch(/disk full|no space left/);
      // (the file may end in part of a line meanwhile: the rest is written with the lines after it)
      expect(readFileSync(file, 'utf8')).not.toContain('during 2');
    } finally {
      freeDisk();
    }
    log.info({}, 'after');
    expect(lines(file)).toEqual(['before', 'during 1', 'during 2', 'during 3', 'after']);
    expect(warned).toHaveLength(1);
  });

  it('what is held while the disk stays full is bounded: lines past the bound are dropped, said once', () => {
    const dataDir = join(root, 'b', '.toolsmith');
    mkdirSync(dataDir, { recursive: true });
    const warned: string[] = [];
    const log = createLogger(dataDir, 'info', (l) => warned.push(l));
    const file = workspaceLogFile(dataDir);
    const big = 'x'.repeat(4096);
    fillDisk();
    try {
      const n = Math.ceil((2 * LOG_HELD_BYTES) / big.length);
      for (let i = 0; i < n; i++) log.info({ big, i }, `line ${i}`);
      expect(warned).toHaveLength(2);
      expect(warned[1]).toContain(file);
      expect(warned[1]).toMatch(/dropped/);
    } finally {
      freeDisk();
    }
    log.info({}, 'after');
    const written = lines(file);
    expect(written.at(-1)).toBe('after');
    // (held: at most the bound's worth, the first lines, in order)
    expect(written.length).toBeLessThan(Math.ceil(LOG_HELD_BYTES / big.length) + 2);
    expect(written.slice(0, 3)).toEqual(['line 0', 'line 1', 'line 2']);
  });
});
