/**
 * `npm run bench:orchestrator`: prints JSON.
 * - overhead per attempt: the orchestrator's own work (prompt, assembly, validation, events written to a
 *   real SQLite file) with an instant in-process LLM and executor, so LLM and sandbox time are excluded;
 * - appending 10,000 events to a run (each its own durable transaction);
 * - filtering 100,000 stored runs by text and by status.
 */
import { fileURLToPath } from 'node:url';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateScript } from '../src-main/core/lang/validate.ts';
import { Orchestrator } from '../src-main/core/orchestrator/orchestrator.ts';
import type { ScriptExecutor } from '../src-main/core/ports/executor.ts';
import type { LlmProvider } from '../src-main/core/ports/llm.ts';
import { ScriptGenerator } from '../src-main/core/script/generator.ts';
import { extractTools } from '../src-main/core/tools/extract.ts';
import { RunStore } from '../src-main/infra/store/run-store.ts';

const root = fileURLToPath(new URL('../', import.meta.url));
const prompts = Object.fromEntries(
  readdirSync(join(root, 'resources/prompts')).map((f) => [
    f.replace(/\.md$/, ''),
    readFileSync(join(root, 'resources/prompts', f), 'utf8'),
  ]),
);
const tools = extractTools(
  readFileSync(join(root, 'resources/workspace/sandboxes/ecommerce/tools.py'), 'utf8'),
).tools;
const dir = mkdtempSync(join(tmpdir(), 'toolsmith-bench-'));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(3));
};

const SCRIPT =
  '```python\norders = get_orders()\npending = [o for o in orders.data if o["status"] == "pending"]\nemit_result({"pending": len(pending), "ids": [o["id"] for o in pending]})\n```';
const llm: LlmProvider = {
  id: 'instant',
  model: 'instant',
  generate: async () => ({
    text: SCRIPT,
    promptTokens: 10,
    completionTokens: 10,
    model: 'instant',
    latencyMs: 0,
    provider: 'instant',
    retries: [],
  }),
};
const executor: ScriptExecutor = {
  execute: async () => ({
    success: true,
    data: { pending: 2 },
    intermediates: [],
    logs: [],
    toolCalls: [],
    exitReason: 'ok',
    isolation: 'none',
    durationMs: 0,
    runtime: 'python',
  }),
};

async function overhead() {
  const store = new RunStore(join(dir, 'overhead.db'));
  const orch = new Orchestrator({
    sink: store,
    executor,
    generator: new ScriptGenerator(prompts),
    validate: (code, language, names) => validateScript(code, language, { tools: names }),
  });
  const toolMap = Object.fromEntries(tools.map((t) => [t.name, t.name]));
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const t0 = performance.now();
    await orch.run({
      task: `count pending orders ${i}`,
      sandbox: { name: 'ecommerce', tools },
      toolMap,
      mode: 'plan',
      providers: [llm],
    });
    if (i >= 50) times.push(performance.now() - t0);
  }
  store.close();
  return {
    runs: times.length,
    attemptsPerRun: 1,
    p50_ms: pct(times, 50),
    p95_ms: pct(times, 95),
    target_p50_ms: 2,
  };
}

function append10k() {
  const store = new RunStore(join(dir, 'append.db'));
  const id = store.createRun({
    task: 'append',
    sandbox: 'ecommerce',
    mode: 'plan',
    language: 'python',
    maxRetries: 0,
    maxSteps: 1,
  });
  const t0 = performance.now();
  for (let i = 0; i < 10_000; i++) store.append(id, 'emit', { n: 1, kind: 'log', data: `line ${i}` });
  const ms = performance.now() - t0;
  store.close();
  return {
    events: 10_000,
    total_ms: Number(ms.toFixed(1)),
    per_event_us: Number(((ms * 1000) / 10_000).toFixed(1)),
    target_total_ms: 1000,
  };
}

function filter100k() {
  const store = new RunStore(join(dir, 'filter.db'));
  const statuses = ['succeeded', 'failed', 'cancelled'] as const;
  const words = ['orders', 'inventory', 'tickets', 'refund', 'users', 'warehouse', 'monitor', 'keyboard'];
  const seed0 = performance.now();
  store.batch(() => {
    for (let i = 0; i < 100_000; i++) {
      const id = store.createRun({
        task: `check ${words[i % 8]} number ${i}`,
        sandbox: i % 2 ? 'ecommerce' : 'support',
        mode: 'plan',
        language: 'python',
        maxRetries: 1,
        maxSteps: 1,
      });
      store.append(id, 'script', {
        n: 1,
        code: '',
        body: `r = get_${words[(i * 7) % 8]}()\nemit_result(r.data)`,
        bodyStartLine: 1,
        language: 'python',
        source: 'llm',
      });
      store.append(id, 'run_finished', {
        status: statuses[i % 3] as 'failed',
        ...(i % 3 === 1 ? { error: `KeyError: 'k${i % 97}'` } : {}),
      });
    }
  });
  const seedMs = performance.now() - seed0;
  const measure = (f: Parameters<RunStore['list']>[0]) => {
    const t: number[] = [];
    let total = 0;
    for (let i = 0; i < 30; i++) {
      const t0 = performance.now();
      total = store.list({ ...f, limit: 100 }).total;
      t.push(performance.now() - t0);
    }
    return { matches: total, p50_ms: pct(t, 50), p95_ms: pct(t, 95) };
  };
  const out = {
    runs: 100_000,
    seed_s: Number((seedMs / 1000).toFixed(1)),
    text: measure({ text: 'warehouse' }),
    text_in_error: measure({ text: "KeyError: 'k42'" }),
    status: measure({ status: 'failed' }),
    text_and_status: measure({ text: 'refund', status: 'failed' }),
    target_p50_ms: 50,
  };
  store.close();
  return out;
}

const result = {
  overhead_per_attempt: await overhead(),
  append_10k_events: append10k(),
  filter_100k_runs: filter100k(),
};
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
