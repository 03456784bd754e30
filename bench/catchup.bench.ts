/**
 * `npm run bench:catchup`: prints JSON (progress goes to stderr). What a live view's catch-up costs
 * (`runs.events {afterSeq}` for the one event it missed) on runs of 2,001 and 20,001 events in a real
 * SQLite run store, measured in-process through the real service:
 * - before: every event of the run read and parsed, then filtered in JavaScript (the former path);
 * - after: `RunService.eventViews`, a `seq > ?` range on the events' key (O(missed)).
 * Also `runs.prompt` (one attempt's prompt): the whole record derived (before) against the prompt rows
 * only (after). Each figure is the median of REPEATS calls; the ratios hold under load (same run).
 */
import { cpus, loadavg } from 'node:os';
import { ToolsmithService } from '../src-main/app/service.ts';
import { eventView } from '../src-main/app/run-view.ts';
import type { RunStore } from '../src-main/infra/store/run-store.ts';
import { removeWorkspace, tempWorkspace } from '../test/support/workspace.ts';

const REPEATS = Number(process.env['TOOLSMITH_BENCH_REPEATS'] ?? 15);
const SIZES = [2_001, 20_001];
const log = (msg: string) => process.stderr.write(`[bench:catchup] ${msg}\n`);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round((s[Math.floor(s.length / 2)] ?? 0) * 1000) / 1000;
};
const time = (fn: () => unknown): number => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
const measure = (fn: () => unknown) => median(Array.from({ length: REPEATS }, () => time(fn)));

/** A run of `count` events: a prompt and an answer per attempt, log emits between, a finish. */
function seedRun(store: RunStore, count: number): string {
  let id = '';
  store.batch(() => {
    id = store.createRun({
      task: `a run of ${count} events`,
      sandbox: 'ecommerce',
      mode: 'interactive',
      language: 'python',
      maxRetries: 0,
      maxSteps: 1000,
    });
    let written = 1;
    for (let n = 1; written < count - 1; n++) {
      store.append(id, 'prompt', {
        n,
        kind: 'step',
        system: 'system text',
        user: `step ${n}: ${'context '.repeat(200)}`,
        sections: [{ title: 'Tools', text: 'list_orders(month: str) -> list[Order]' }],
        hints: [],
      });
      written++;
      for (let k = 0; k < 8 && written < count - 1; k++, written++)
        store.append(id, 'emit', { n, kind: 'log', data: `line ${k} of step ${n}` });
    }
    store.append(id, 'run_finished', { status: 'succeeded', result: 1 });
  });
  return id;
}

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws);
try {
  const runs = await svc.runs();
  const results: Record<string, unknown>[] = [];
  for (const size of SIZES) {
    log(`seeding a run of ${size} events`);
    const id = seedRun(runs.store, size);
    const afterSeq = size - 2; // the one event missed: the last
    const before = measure(() => {
      const events = runs.store.events(id).filter((e) => e.seq > afterSeq);
      return { events: events.map(eventView), live: runs.store.summary(id)?.status === 'running' };
    });
    const after = measure(() => runs.eventViews(id, afterSeq));
    if (runs.eventViews(id, afterSeq).events.length !== 1)
      throw new Error('the catch-up did not bring one event');
    const promptBefore = measure(() => runs.get(id).attempts.find((a) => a.n === 1)?.prompt);
    const promptAfter = measure(() => runs.prompt(id, 1));
    results.push({
      events: size,
      catch_up_one_missed_ms: { before, after, ratio: Math.round((before / after) * 10) / 10 },
      prompt_ms: {
        before: promptBefore,
        after: promptAfter,
        ratio: Math.round((promptBefore / promptAfter) * 10) / 10,
      },
    });
  }
  process.stdout.write(
    `${JSON.stringify({ repeats: REPEATS, cpus: cpus().length, load: loadavg()[0], results }, null, 2)}\n`,
  );
} finally {
  await svc.close();
  removeWorkspace(ws);
}
