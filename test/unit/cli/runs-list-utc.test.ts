/**
 * `toolsmith runs list` prints when each run started in UTC (the store keeps epoch milliseconds), and
 * says so: `2026-01-01T00:00:00Z`. Without the `Z` a person in another time zone read UTC as their own
 * time (13 h 45 off in Pacific/Chatham). A real CLI process, in that time zone.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace('toolsmith-runs-utc-');
afterAll(() => removeWorkspace(ws));

const toolsmith = (...args: string[]) => runToolsmith(ws, args, { TZ: 'Pacific/Chatham' });

describe('runs list in another time zone', () => {
  it('shows the start in UTC, marked Z', async () => {
    const imported = await toolsmith('runs', 'import', join(repoRoot, 'test/fixtures/runs/run-v1.json'));
    expect(imported.err).toBe('');
    const r = await toolsmith('runs', 'list');
    expect(r.err).toBe('');
    // The fixture's run started at 1767225600137 ms: 2026-01-01 00:00:00.137 UTC (13:45 in Chatham).
    expect(r.out).toMatch(/^6f1c2a9e-0b7d-4c55-9a31-3f0e8d2b7c41 {2}2026-01-01T00:00:00Z {2}succeeded/m);
  });
});
