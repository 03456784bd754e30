/**
 * `runs import` of hand-made or damaged export files: every event is checked before anything is
 * written; a bad file changes nothing (no half-imported run, no stored status the list then refuses)
 * and the error names the file, the run, the event's index and the field, never a raw SQLite or
 * TypeError message. A good export still round-trips.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cliProcess } from './support/processes.ts';

let ws: string;
let data: string;
const file = (name: string, doc: unknown) => {
  const f = join(data, name);
  writeFileSync(f, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return f;
};

const started = {
  task: 'count orders',
  sandbox: 'ecommerce',
  mode: 'plan',
  language: 'python',
  maxRetries: 1,
  maxSteps: 1,
};
const ev = (seq: number, type: string, d: unknown) => ({
  v: 1,
  runId: 'r-hand',
  seq,
  ts: 1000 + seq,
  type,
  data: d,
});
const good = () => ({
  format: 'toolsmith-run',
  version: 1,
  exportedAt: 1,
  events: [
    ev(0, 'run_started', started),
    ev(1, 'tier', { n: 1, tier: 'llm', provider: 'local' }),
    ev(2, 'script', {
      n: 1,
      code: 'emit_result(1)',
      body: 'emit_result(1)',
      bodyStartLine: 1,
      language: 'python',
      source: 'llm',
    }),
    ev(3, 'run_finished', { status: 'succeeded', result: 1 }),
  ],
});

beforeAll(() => {
  ws = tempWorkspace();
  data = mkdtempSync(join(tmpdir(), 'toolsmith-import-'));
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(data, { recursive: true, force: true });
});

const storeFile = () => join(ws, '.toolsmith', 'runs.db');
const runCount = () => {
  const s = new RunStore(storeFile());
  try {
    return s.list({ count: true }).total;
  } finally {
    s.close();
  }
};

describe('runs import checks every event before writing', () => {
  const bad: [string, (d: ReturnType<typeof good>) => unknown, RegExp][] = [
    [
      'a status that does not exist',
      (d) => ((d.events[3]!.data as { status: string }).status = 'bogus') && d,
      /run r-hand, event 3 \(run_finished\): data\.status: Invalid option/,
    ],
    [
      'a field of the wrong type mid-run',
      (d) => ((d.events[2]!.data as { bodyStartLine: unknown }).bodyStartLine = 'one') && d,
      /run r-hand, event 2 \(script\): data\.bodyStartLine: /,
    ],
    [
      'an event that is not an object',
      (d) => (d.events.splice(1, 1, 42 as never), d),
      /run r-hand, event 1: /,
    ],
    ['an unknown event type', (d) => ((d.events[1]!.type = 'teleport'), d), /event 1 \(teleport\): type: /],
    [
      'events out of order',
      (d) => ((d.events[2]!.seq = 1), d),
      /event 2 \(script\): seq: 1 does not follow 1/,
    ],
    [
      'another run mixed in',
      (d) => ((d.events[1]!.runId = 'other'), d),
      /event 1 \(tier\): runId: other is not the run's id r-hand/,
    ],
    ['no run_started first', (d) => (d.events.shift(), d), /run_started/],
    [
      'a newer version',
      (d) => ((d.version = 99), d),
      /export version 99 is newer than this Toolsmith supports/,
    ],
    ['not an export', () => ({ hello: 'world' }), /not a toolsmith-run export: format: /],
  ];

  for (const [what, damage, want] of bad)
    it(`refuses ${what}, names where, writes nothing`, async () => {
      const before = runCount();
      const f = file('bad.json', damage(good()));
      const r = await cliProcess(ws, data, ['runs', 'import', f]).done;
      expect(r.code).toBe(2);
      expect(r.err).toContain(f);
      expect(r.err).toMatch(want);
      expect(r.err).not.toMatch(/TypeError|SQLITE|constraint|Cannot read/);
      expect(runCount()).toBe(before);
    }, 60_000);

  it('imports a good export whole, and runs list --status still works', async () => {
    const r = await cliProcess(ws, data, ['runs', 'import', file('good.json', good())]).done;
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/imported run r-hand/);
    const list = await cliProcess(ws, data, ['runs', 'list', '--status', 'succeeded', '--json']).done;
    expect(list.code).toBe(0);
    expect(list.out).toContain('r-hand');
  }, 60_000);

  it('an unfinished export reads interrupted with a reason', () => {
    const d = good();
    d.events.pop();
    d.events.forEach((e) => (e.runId = 'r-unfinished'));
    const s = new RunStore(storeFile());
    try {
      const id = s.import(d);
      expect(s.get(id)).toMatchObject({
        status: 'interrupted',
        error: expect.stringMatching(/run_finished/),
      });
    } finally {
      s.close();
    }
  });
});
