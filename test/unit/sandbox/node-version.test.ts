/**
 * The node image's tag holds `node --version` of the binary it packs: the running Node answers for
 * itself (no process started), any other binary is asked.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeVersion } from '../../../src-main/infra/sandbox/images.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolsmith-node-version-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('nodeVersion', () => {
  it('is what the binary answers to --version, for the running Node (by another path too) and for another binary', () => {
    const asked = spawnSync(process.execPath, ['--version'], { encoding: 'utf8' }).stdout.trim();
    expect(nodeVersion(process.execPath)).toBe(asked);
    const link = join(dir, 'node-link');
    symlinkSync(process.execPath, link);
    expect(nodeVersion(link)).toBe(asked);
    const other = join(dir, 'other-node');
    writeFileSync(other, '#!/bin/sh\necho v0.0.1-test\n');
    chmodSync(other, 0o755);
    expect(nodeVersion(other)).toBe('v0.0.1-test');
  });
});
