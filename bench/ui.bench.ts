/**
 * `npm run bench:ui`: prints JSON (progress goes to stderr). The workbench renderer in Debian's Chromium
 * against the browser front end (real service, real sandbox backend, built renderer):
 * - open_run_200 / open_steps_200: from an in-app navigation (`location.hash`, the app already loaded)
 *   until the run detail shows all 200 timeline items, the selected attempt's view and a ready Monaco
 *   editor, measured with performance.now() inside the page (MutationObserver + next frame), with a
 *   breakdown (runs.get fetch, long tasks) to tell server, transfer and rendering apart;
 * - run_list_100k: the virtualized run list over 100,000 stored runs — rows rendered, rows fetched,
 *   time per scroll step until the rows at that position show real data, time to first rows;
 * - server: runs.get and runs.list measured in-process (events read, derivation, JSON size);
 * - live_run_bytes_200: bytes a view receives while following the 200-attempt run live, re-fetching
 *   the run per pushed event (before) vs folding pushed events (after), see bench/live-bytes.ts.
 * The two 200-attempt/step runs are written by the real orchestrator (scripted LLM, an executor that
 * answers realistic ExecutionResults), so their events are exactly what the app records.
 * A what-if (same server work, runs.get without the other attempts' prompts) shows what the payload costs.
 * Env: `TOOLSMITH_BENCH_NO_BUILD=1` skips the renderer rebuild (otherwise done under
 * /tmp/toolsmith-build.lock when out/renderer is missing or older than src-renderer);
 * `TOOLSMITH_BENCH_RUNS=N` seeds N list runs instead of 100,000; `TOOLSMITH_BENCH_PROFILE=1` adds a V8
 * CPU profile and a Chromium trace of one open per run (test-results/ui-bench-*.cpuprofile);
 * `TOOLSMITH_BENCH_ONLY=live` seeds the two big runs only and prints live_run_bytes_200 (no browser).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createSandboxManager } from '../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../src-main/app/service.ts';
import { validateScript } from '../src-main/core/lang/validate.ts';
import { Orchestrator } from '../src-main/core/orchestrator/orchestrator.ts';
import type { ExecuteRequest, ScriptExecutor } from '../src-main/core/ports/executor.ts';
import { silentLogger } from '../src-main/core/ports/executor.ts';
import type { LlmProvider } from '../src-main/core/ports/llm.ts';
import { deriveRun } from '../src-main/core/records/records.ts';
import type { ExecutionResult, ToolCallTrace } from '../src-main/core/sandbox/execution.ts';
import type { JsonValue } from '../src-main/core/tools/model.ts';
import { RunStore } from '../src-main/infra/store/run-store.ts';
import { measureListPages } from './support/list-bench.ts';
import { seedManyRuns } from './support/seed-runs.ts';
import { startWebServer } from '../src-main/web/server.ts';
import { liveRunBytes } from './live-bytes.ts';
import type { WebServer } from '../src-main/web/server.ts';
import { CHROMIUM, launchChromium } from '../test/e2e/support/browser.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../test/support/workspace.ts';

// stdout carries the JSON result only: anything else written there goes to stderr.
const writeStdout = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind<typeof process.stdout.write>(process.stderr);
const log = (msg: string) => process.stderr.write(`[bench:ui] ${msg}\n`);

const OPEN_TARGET_MS = 300;
const OPEN_REPEATS = 12;
const LIST_RUNS = Number(process.env['TOOLSMITH_BENCH_RUNS'] ?? 100_000);
const ATTEMPTS = 200;
/** Runs in the separate store of `run_list_1m` (TOOLSMITH_BENCH_BIG_RUNS=0 leaves it out). */
const BIG_RUNS = Number(process.env['TOOLSMITH_BENCH_BIG_RUNS'] ?? 1_000_000);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0);
};
const round = (x: number, d = 1) => Number(x.toFixed(d));
const stats = (xs: number[]) => ({
  n: xs.length,
  p50_ms: pct(xs, 50),
  p95_ms: pct(xs, 95),
  max_ms: round(Math.max(...xs)),
});

// ---------------------------------------------------------------- renderer build

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

function ensureRenderer(): string {
  const out = join(repoRoot, 'out', 'renderer');
  const index = join(out, 'index.html');
  const missing = !existsSync(index);
  const stale = !missing && newestMtime(join(repoRoot, 'src-renderer')) > statSync(index).mtimeMs;
  if ((missing || stale) && process.env['TOOLSMITH_BENCH_NO_BUILD'] !== '1') {
    log(`renderer build ${missing ? 'missing' : 'older than src-renderer'}: electron-vite build`);
    const r = spawnSync('flock', ['/tmp/toolsmith-build.lock', 'npx', 'electron-vite', 'build'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    if (r.status !== 0) {
      if (missing) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
      log(`build failed, measuring the existing (older) build:\n${r.stderr.slice(-2000)}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- seeding

const WAREHOUSES = ['New York', 'Berlin', 'Tokyo'];
const ORDERS = [
  { id: 'o1', user_id: 'u1', product_id: 'p1', quantity: 1, total: 129.0, status: 'shipped' },
  { id: 'o2', user_id: 'u2', product_id: 'p3', quantity: 2, total: 639.98, status: 'pending' },
  { id: 'o3', user_id: 'u1', product_id: 'p4', quantity: 3, total: 72.0, status: 'delivered' },
  { id: 'o4', user_id: 'u3', product_id: 'p2', quantity: 1, total: 89.5, status: 'pending' },
  { id: 'o5', user_id: 'u4', product_id: 'p1', quantity: 1, total: 129.0, status: 'cancelled' },
  { id: 'o6', user_id: 'u3', product_id: 'p3', quantity: 1, total: 319.99, status: 'shipped' },
];
const USERS: Record<string, JsonValue> = {
  u2: { id: 'u2', name: 'Alan Turing', email: 'alan@example.com', tier: 'silver', city: 'Manchester' },
  u3: { id: 'u3', name: 'Grace Hopper', email: 'grace@example.com', tier: 'gold', city: 'New York' },
};
const PRODUCTS: Record<string, { name: string; price: number }> = {
  p1: { name: 'Mechanical keyboard', price: 129.0 },
  p2: { name: 'USB-C dock', price: 89.5 },
  p3: { name: '27in monitor', price: 319.99 },
  p4: { name: 'Desk lamp', price: 24.0 },
};

const fence = (body: string) => '```python\n' + body + '\n```';

/** PLAN attempt n: fails at runtime on a wrong key, except the last attempt. */
const planScript = (n: number, last: boolean) =>
  `# attempt ${n}: total spent per customer on pending orders
orders = get_orders()
pending = [o for o in orders.data if o["status"] == "pending"]
totals = {}
for o in pending:
    user = get_user(user_id=o["user_id"])
    stock = check_inventory(product_id=o["product_id"], warehouse="${WAREHOUSES[n % 3]}")
    emit_log("order " + o["id"] + ": " + str(stock.data["in_stock"]) + " in stock")
    name = user.data["name"]
    totals[name] = totals.get(name, 0) + o["total"] * o["${last ? 'quantity' : `qty_${n % 7}`}"]
emit_result({"totals": totals, "pending": len(pending)})`;

/** INTERACTIVE step n: reports low stock in one warehouse; the last step emits the result. */
const stepScript = (n: number, last: boolean) =>
  last
    ? `# step ${n}: the answer from what the steps collected
low = [item for part in collected for item in part["low"]]
emit_result({"low_stock": low, "steps": len(collected)})`
    : `# step ${n}: products low in stock in ${WAREHOUSES[n % 3]}
low = []
for pid in ["p1", "p2", "p3", "p4"]:
    r = check_inventory(product_id=pid, warehouse="${WAREHOUSES[n % 3]}")
    if r.data["${n % 15 === 4 ? 'stock' : 'in_stock'}"] < ${(n % 9) + 2}:
        low.append({"product": r.data["name"], "in_stock": r.data["in_stock"], "step": ${n}})
emit_intermediate({"warehouse": "${WAREHOUSES[n % 3]}", "low": low, "step": ${n}})`;

/** An LLM that answers from a script list, with realistic token counts and latencies. */
function scriptedLlm(answers: string[]): LlmProvider {
  let i = 0;
  return {
    id: 'openai',
    model: 'qwen2.5-coder:7b',
    generate: async (req) => {
      const text = answers[i++] ?? fence('emit_result(None)');
      return {
        text: `Here is the script:\n\n${text}\n\nIt reads the data through the tools and emits the result.`,
        promptTokens: Math.round((req.system.length + req.user.length) / 4),
        completionTokens: Math.round(text.length / 4),
        model: 'qwen2.5-coder:7b',
        provider: 'openai',
        latencyMs: 900 + (i % 13) * 71,
        retries: i % 17 === 0 ? [{ attempt: 1, reason: '429 rate limited', waitMs: 1000 }] : [],
      };
    },
  };
}

const call = (name: string, args: Record<string, JsonValue>, data: JsonValue, ms: number): ToolCallTrace => ({
  name,
  args,
  result: { success: true, data },
  ms,
  location: 'sandbox',
});
const inventory = (pid: string, wh: string, n: number): JsonValue => ({
  product_id: pid,
  warehouse: wh,
  name: PRODUCTS[pid]?.name ?? pid,
  in_stock: (n * 7 + pid.charCodeAt(1)) % 20,
  price: PRODUCTS[pid]?.price ?? 0,
});
const lineOf = (body: string, needle: string) => body.split('\n').findIndex((l) => l.includes(needle)) + 1;
const bodyOf = (code: string, start: number) => code.split('\n').slice(start - 1);

/** Answers like the Docker sandbox would for the scripts above, with tool calls, logs and tracebacks. */
function realisticExecutor(): ScriptExecutor {
  let n = 0;
  return {
    execute: async (req: ExecuteRequest): Promise<ExecutionResult> => {
      n++;
      const body = bodyOf(req.code, req.bodyStartLine).join('\n');
      const emit = (t: ToolCallTrace) => req.onEvent?.({ type: 'tool_call', trace: t });
      const logs: string[] = [];
      const base = { isolation: 'docker' as const, runtime: 'python', durationMs: 60 + (n % 11) * 13 };
      if (body.includes('get_orders()')) {
        const calls = [call('get_orders', {}, ORDERS, 1.8)];
        const pending = ORDERS.filter((o) => o.status === 'pending');
        for (const o of pending) {
          calls.push(call('get_user', { user_id: o.user_id }, USERS[o.user_id] ?? null, 0.9));
          const wh = WAREHOUSES[n % 3] as string;
          calls.push(
            call(
              'check_inventory',
              { product_id: o.product_id, warehouse: wh },
              inventory(o.product_id, wh, n),
              1.1,
            ),
          );
          logs.push(`order ${o.id}: ${(n * 7) % 20} in stock`);
          if (!body.includes('o["quantity"]')) break;
        }
        calls.forEach(emit);
        for (const l of logs) req.onEvent?.({ type: 'emit', kind: 'log', data: l });
        if (!body.includes('o["quantity"]')) {
          const key = /o\["(qty_\d)"\]/.exec(body)?.[1] ?? 'qty';
          const line = lineOf(body, key);
          return {
            ...base,
            success: false,
            intermediates: [],
            logs,
            toolCalls: calls,
            error: {
              type: 'KeyError',
              message: `'${key}'`,
              frames: [{ line, name: '<script>', text: body.split('\n')[line - 1]?.trim() ?? '' }],
            },
            exitReason: 'error',
          };
        }
        return {
          ...base,
          success: true,
          data: { totals: { 'Alan Turing': 1279.96, 'Grace Hopper': 89.5 }, pending: 2 },
          intermediates: [],
          logs,
          toolCalls: calls,
          exitReason: 'ok',
        };
      }
      if (body.includes('emit_result(')) {
        const low = [{ product: 'USB-C dock', in_stock: 0, step: 3 }];
        return {
          ...base,
          success: true,
          data: { low_stock: low, steps: 199 },
          intermediates: [],
          logs: [],
          toolCalls: [],
          exitReason: 'ok',
        };
      }
      const wh = /warehouse="([^"]+)"/.exec(body)?.[1] ?? 'Berlin';
      const step = Number(/# step (\d+)/.exec(body)?.[1] ?? 0);
      const calls: ToolCallTrace[] = [];
      for (const pid of ['p1', 'p2', 'p3', 'p4']) {
        calls.push(
          call('check_inventory', { product_id: pid, warehouse: wh }, inventory(pid, wh, step), 1.2),
        );
        if (body.includes('"stock"]')) break;
      }
      calls.forEach(emit);
      if (body.includes('"stock"]')) {
        const line = lineOf(body, '"stock"]');
        return {
          ...base,
          success: false,
          intermediates: [],
          logs,
          toolCalls: calls,
          error: {
            type: 'KeyError',
            message: "'stock'",
            frames: [{ line, name: '<script>', text: body.split('\n')[line - 1]?.trim() ?? '' }],
          },
          exitReason: 'error',
        };
      }
      const low = calls
        .map((c) => c.result?.data as { name: string; in_stock: number })
        .filter((d) => d.in_stock < (step % 9) + 2)
        .map((d) => ({ product: d.name, in_stock: d.in_stock, step }));
      const intermediate: JsonValue = { warehouse: wh, low, step };
      req.onEvent?.({ type: 'emit', kind: 'intermediate', data: intermediate });
      return {
        ...base,
        success: true,
        intermediates: [intermediate],
        logs,
        toolCalls: calls,
        exitReason: 'ok',
      };
    },
  };
}

/** Writes the 200-attempt PLAN run and the 200-step INTERACTIVE run through the real orchestrator. */
async function seedBigRuns(svc: ToolsmithService, store: RunStore): Promise<{ plan: string; steps: string }> {
  const sandbox = 'ecommerce';
  const { tools, kit } = svc.catalog.scriptTools(sandbox);
  const toolMap = Object.fromEntries(kit.tools.map((k) => [k.alias, k.tool.name]));
  const ctx = {
    name: sandbox,
    tools,
    language: 'python' as const,
    toolsPrompt: svc.catalog.registry(sandbox).prompt(),
  };
  const orch = new Orchestrator({
    sink: store,
    executor: realisticExecutor(),
    generator: svc.generator,
    validate: (code, language, names) => validateScript(code, language, { tools: names }),
  });
  // PLAN: mostly runtime errors; every 10th attempt needs a correction, every 25th stays invalid.
  const planAnswers: string[] = [];
  for (let n = 1; n <= ATTEMPTS; n++) {
    const bad = fence(`import os\n${planScript(n, false)}`);
    if (n % 25 === 7) planAnswers.push(bad, bad);
    else if (n % 10 === 3) planAnswers.push(bad, fence(planScript(n, n === ATTEMPTS)));
    else planAnswers.push(fence(planScript(n, n === ATTEMPTS)));
  }
  const plan = await orch.run({
    task: 'What did each customer spend on pending orders (total x quantity)?',
    sandbox: ctx,
    toolMap,
    mode: 'plan',
    providers: [scriptedLlm(planAnswers)],
    maxRetries: ATTEMPTS - 1,
  });
  const stepAnswers: string[] = [];
  for (let n = 1; n <= ATTEMPTS; n++) stepAnswers.push(fence(stepScript(n, n === ATTEMPTS)));
  const steps = await orch.run({
    task: 'Which products are low in stock in any warehouse?',
    sandbox: ctx,
    toolMap,
    mode: 'interactive',
    providers: [scriptedLlm(stepAnswers)],
    maxSteps: ATTEMPTS,
  });
  for (const [o, what] of [
    [plan, 'plan'],
    [steps, 'interactive'],
  ] as const) {
    const rec = store.get(o.runId);
    if (rec?.attempts.length !== ATTEMPTS || o.status !== 'succeeded')
      throw new Error(`the ${what} run has ${rec?.attempts.length} attempts and status ${o.status}`);
  }
  return { plan: plan.runId, steps: steps.runId };
}

// ---------------------------------------------------------------- in-page instrumentation

/** Installed before the app's scripts; plain JS run by Chromium (the page's clock, not Playwright's). */
const PAGE_HELPERS = String.raw`(() => {
  const B = (window.__bench = { maxRows: 0, trackRows: true, firstRowAt: undefined, totalAt: undefined, wheelTs: undefined });
  const rowsIn = (scroll) => scroll.querySelectorAll('.run-row').length;
  new MutationObserver(() => {
    if (!B.trackRows) return;
    const scroll = document.querySelector('[data-testid="run-scroll"]');
    if (!scroll) return;
    const n = rowsIn(scroll);
    if (n > B.maxRows) B.maxRows = n;
    if (B.firstRowAt === undefined && scroll.querySelector('.run-row[data-run-id]')) B.firstRowAt = performance.now();
    if (B.totalAt === undefined && /^[1-9]/.test(document.querySelector('[data-testid="runs-total"]')?.textContent ?? ''))
      B.totalAt = performance.now();
  }).observe(document, { childList: true, subtree: true });
  B.firstTimes = () => {
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    const js = res.find((e) => /\/assets\/index-[^/]*\.js$/.test(e.name));
    const list = res.find((e) => e.name.endsWith('/api/runs.list'));
    return {
      firstRowAt: B.firstRowAt,
      totalAt: B.totalAt,
      bundleKb: js ? js.decodedBodySize / 1024 : -1,
      bundleLoadedAt: js ? js.responseEnd : -1,
      domContentLoadedAt: nav ? nav.domContentLoadedEventEnd : -1,
      listRequestAt: list ? list.startTime : -1,
      listResponseAt: list ? list.responseEnd : -1,
    };
  };
  /** runs.get outside the app: transfer (server included) vs JSON.parse in the page. */
  B.diagnoseGet = async (id) => {
    const token = sessionStorage.getItem('toolsmith.token') ?? '';
    const t0 = performance.now();
    const res = await fetch('/api/runs.get', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
      body: JSON.stringify({ runId: id }),
    });
    const text = await res.text();
    const t1 = performance.now();
    const v = JSON.parse(text);
    const t2 = performance.now();
    return { fetch_text_ms: t1 - t0, json_parse_ms: t2 - t1, attempts: v.value.attempts.length, bytes: text.length };
  };
  addEventListener('wheel', (e) => { B.wheelTs = e.timeStamp; }, { capture: true, passive: true });

  /** Resolves with the first time each named condition held (checked on DOM mutations and frames). */
  B.waitAll = (conds, timeoutMs = 60000) => new Promise((resolve, reject) => {
    const t0 = performance.now();
    const at = {};
    let done = false;
    let raf = 0;
    const check = () => {
      if (done) return;
      const now = performance.now();
      for (const [k, f] of Object.entries(conds)) if (at[k] === undefined && f()) at[k] = now;
      if (Object.keys(conds).every((k) => at[k] !== undefined)) {
        done = true; mo.disconnect(); cancelAnimationFrame(raf); resolve(at);
      } else if (now - t0 > timeoutMs) {
        done = true; mo.disconnect(); cancelAnimationFrame(raf);
        reject(new Error('timed out waiting for ' + Object.keys(conds).filter((k) => at[k] === undefined).join(', ')));
      }
    };
    const mo = new MutationObserver(check);
    mo.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
    const tick = () => { check(); if (!done) raf = requestAnimationFrame(tick); };
    raf = requestAnimationFrame(tick);
    check();
  });
  /** Just after the next frame is produced (rAF, then a task). */
  B.nextPaint = () => new Promise((r) => requestAnimationFrame(() => {
    const c = new MessageChannel();
    c.port1.onmessage = () => r(performance.now());
    c.port2.postMessage(0);
  }));
  B.settle = async (frames = 3) => { for (let i = 0; i < frames; i++) await B.nextPaint(); };

  B.openRun = async ({ id, count, last }) => {
    B.trackRows = false;
    await B.settle();
    performance.clearResourceTimings();
    const longTasks = [];
    const po = new PerformanceObserver((l) => longTasks.push(...l.getEntries()));
    try { po.observe({ type: 'longtask' }); } catch {}
    const t0 = performance.now();
    location.hash = '#/run/' + encodeURIComponent(id);
    const at = await B.waitAll({
      timeline: () => document.querySelectorAll('.run-detail .timeline .tl-item').length === count,
      attempt_view: () => !!document.querySelector('[data-testid="attempt-view"][data-attempt="' + last + '"]'),
      editor_ready: () => !!document.querySelector('[data-testid="attempt-view"] [data-testid="editor-script"][data-ready="true"]'),
    });
    const ready = Math.max(...Object.values(at));
    const painted = await B.nextPaint();
    const textAt = await B.waitAll({
      editor_text: () => (document.querySelector('[data-testid="editor-script"] .view-lines')?.textContent ?? '').includes('step') ||
        (document.querySelector('[data-testid="editor-script"] .view-lines')?.textContent ?? '').includes('attempt'),
    });
    const idShown = [...document.querySelectorAll('.run-detail .meta-line span')].some((s) => s.textContent === id);
    await new Promise((r) => setTimeout(r, 0));
    po.disconnect();
    const get = performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/runs.get')).pop();
    const tasks = longTasks.filter((t) => t.startTime >= t0 - 1 && t.startTime <= painted);
    return {
      ms: painted - t0,
      dom_ms: ready - t0,
      timeline_ms: at.timeline - t0,
      attempt_view_ms: at.attempt_view - t0,
      editor_ready_ms: at.editor_ready - t0,
      editor_text_ms: textAt.editor_text - t0,
      id_shown: idShown,
      fetch_start_ms: get ? get.startTime - t0 : -1,
      fetch_end_ms: get ? get.responseEnd - t0 : -1,
      server_wait_ms: get ? get.responseStart - get.requestStart : -1,
      body_bytes: get ? get.decodedBodySize : -1,
      long_tasks: tasks.length,
      long_task_ms: tasks.reduce((s, t) => s + t.duration, 0),
      longest_task_ms: tasks.reduce((m, t) => Math.max(m, t.duration), 0),
    };
  };

  B.openList = async () => {
    B.trackRows = false;
    location.hash = '#/runs';
    await B.waitAll({
      rows: () => !document.querySelector('.run-detail') && !!document.querySelector('[data-testid="run-scroll"] .run-row[data-run-id]'),
    });
    await B.settle();
  };

  const scrollEl = () => document.querySelector('[data-testid="run-scroll"]');
  B.geometry = () => {
    const el = scrollEl();
    const total = Number(/\d+/.exec(document.querySelector('[data-testid="runs-total"]').textContent)[0]);
    const height = el.firstElementChild.getBoundingClientRect().height;
    return { total, rowHeight: height / total, maxTop: el.scrollHeight - el.clientHeight, clientHeight: el.clientHeight };
  };
  /** Every row intersecting the viewport is rendered with real data (no placeholder). */
  B.visibleLoaded = () => {
    const el = scrollEl();
    const g = B.g;
    const first = Math.floor(el.scrollTop / g.rowHeight);
    const last = Math.min(g.total - 1, Math.floor((el.scrollTop + el.clientHeight - 1) / g.rowHeight));
    for (let i = first; i <= last; i++) {
      const r = el.querySelector('.run-row[aria-rowindex="' + (i + 2) + '"]');
      if (!r || !r.hasAttribute('data-run-id')) return false;
    }
    return true;
  };
  B.rowsNow = () => rowsIn(scrollEl());
  B.scrollStep = async (top) => {
    B.trackRows = true;
    B.g = B.g ?? B.geometry();
    const el = scrollEl();
    await B.nextPaint();
    const t0 = performance.now();
    el.scrollTop = top;
    const at = await B.waitAll({ loaded: () => el.scrollTop === Math.round(Math.min(top, B.g.maxTop)) || Math.abs(el.scrollTop - top) < 2 ? B.visibleLoaded() : false });
    const painted = await B.nextPaint();
    return { ms: at.loaded - t0, paint_ms: painted - t0, rows: B.rowsNow(), top: el.scrollTop };
  };
  /** After a real wheel event (dispatched by the browser): time from its timeStamp to loaded rows. */
  B.afterWheel = async (before) => {
    const el = scrollEl();
    await B.waitAll({ moved: () => B.wheelTs !== undefined && B.wheelTs > before && el.scrollTop > 0 });
    const at = await B.waitAll({ loaded: () => B.visibleLoaded() });
    const painted = await B.nextPaint();
    return { ms: at.loaded - B.wheelTs, paint_ms: painted - B.wheelTs, rows: B.rowsNow(), top: el.scrollTop };
  };
  /** A fling: scrollTop += px every frame for n frames; counts frames that showed placeholders. */
  B.fling = async (px, n) => {
    B.trackRows = true;
    const el = scrollEl();
    let blank = 0;
    let waitMs = 0;
    for (let i = 0; i < n; i++) {
      el.scrollTop += px;
      await B.nextPaint();
      if (!B.visibleLoaded()) {
        blank++;
        const t0 = performance.now();
        await B.waitAll({ loaded: () => B.visibleLoaded() });
        waitMs += performance.now() - t0;
      }
    }
    return { frames: n, px_per_frame: px, frames_with_placeholders: blank, placeholder_wait_ms: waitMs, rows: B.rowsNow(), top: el.scrollTop };
  };
})();`;

interface OpenSample {
  ms: number;
  dom_ms: number;
  timeline_ms: number;
  attempt_view_ms: number;
  editor_ready_ms: number;
  editor_text_ms: number;
  id_shown: boolean;
  fetch_start_ms: number;
  fetch_end_ms: number;
  server_wait_ms: number;
  body_bytes: number;
  long_tasks: number;
  long_task_ms: number;
  longest_task_ms: number;
}
interface StepSample {
  ms: number;
  paint_ms: number;
  rows: number;
  top: number;
}
interface FlingSample {
  frames: number;
  px_per_frame: number;
  frames_with_placeholders: number;
  placeholder_wait_ms: number;
  rows: number;
  top: number;
}
/** Evaluates an expression over the page's `__bench` helpers (awaited when it is a promise). */
const inPage = <T>(page: Page, expr: string): Promise<T> => page.evaluate<T>(`window.__bench.${expr}`);

// ---------------------------------------------------------------- measurements

function mulberry32(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function measureList(page: Page, url: string) {
  const requests: { limit: number; offset: number }[] = [];
  let rowsReceived = 0;
  const onRequest = (r: { url(): string; postData(): string | null }) => {
    if (!r.url().endsWith('/api/runs.list')) return;
    const body = JSON.parse(r.postData() ?? '{}') as { limit?: number; offset?: number };
    requests.push({ limit: body.limit ?? 100, offset: body.offset ?? 0 });
  };
  const onResponse = (r: { url(): string; json(): Promise<unknown> }) => {
    if (!r.url().endsWith('/api/runs.list')) return;
    void r
      .json()
      .then((b) => (rowsReceived += (b as { value?: { runs?: unknown[] } }).value?.runs?.length ?? 0))
      .catch(() => {});
  };
  page.on('request', onRequest);
  page.on('response', onResponse);
  // A fresh load straight onto the run list: first rows are timed from navigation start.
  await page.goto(`${url}#/runs`);
  await page.locator('[data-testid="run-scroll"] .run-row[data-run-id]').first().waitFor({ timeout: 60_000 });
  await inPage(page, 'nextPaint()');
  const first = await inPage<{
    firstRowAt?: number;
    totalAt?: number;
    bundleKb: number;
    bundleLoadedAt: number;
    domContentLoadedAt: number;
    listRequestAt: number;
    listResponseAt: number;
  }>(page, 'firstTimes()');
  const totalText = await page.locator('[data-testid="runs-total"]').innerText();
  const g = await inPage<{ total: number; rowHeight: number; maxTop: number; clientHeight: number }>(
    page,
    'geometry()',
  );
  log(`run list: ${totalText}, row height ${g.rowHeight}px, viewport ${g.clientHeight}px`);

  const jumps: StepSample[] = [];
  const step = async (top: number, into: StepSample[]) => {
    const s = await inPage<StepSample>(page, `scrollStep(${Math.round(top)})`);
    into.push(s);
    return s;
  };
  // top, middle, bottom, then random jumps, then back to regions already seen
  await step(0, jumps);
  await step(g.maxTop / 2, jumps);
  await step(g.maxTop, jumps);
  const rnd = mulberry32(42);
  for (let i = 0; i < 25; i++) await step(rnd() * g.maxTop, jumps);
  await step(0, jumps);
  await step(g.maxTop / 2, jumps);

  // continuous wheel scrolling with real wheel events, from the top
  await step(0, []);
  const box = await page.locator('[data-testid="run-scroll"]').boundingBox();
  if (!box) throw new Error('no run-scroll box');
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const wheel: StepSample[] = [];
  for (let i = 0; i < 80; i++) {
    const before = await inPage<number>(page, 'wheelTs ?? -1');
    await page.mouse.wheel(0, 400);
    wheel.push(await inPage<StepSample>(page, `afterWheel(${before})`));
  }
  // a fast fling (150 px per frame) through the middle of the list
  await step(g.maxTop * 0.3, []);
  const fling = await inPage<FlingSample>(page, 'fling(150, 400)');

  const maxRows = await inPage<number>(page, 'maxRows');
  await new Promise((r) => setTimeout(r, 200));
  page.off('request', onRequest);
  page.off('response', onResponse);
  const all = [...jumps, ...wheel];
  const fetched = requests.reduce((s, r) => s + r.limit, 0);
  const total = Number(/\d+/.exec(totalText)?.[0] ?? 0);
  return {
    total,
    total_text: totalText,
    first_rows_ms: round(first.firstRowAt ?? -1),
    first_rows_note:
      'fresh page load onto #/runs: performance.now() (from navigation start) at the first real row',
    first_rows_breakdown_ms: {
      main_bundle_loaded: round(first.bundleLoadedAt),
      dom_content_loaded: round(first.domContentLoadedAt),
      runs_list_request: round(first.listRequestAt),
      runs_list_response: round(first.listResponseAt),
      total_shown: round(first.totalAt ?? -1),
      main_bundle_kb: round(first.bundleKb, 0),
    },
    max_rows_rendered: maxRows,
    rows_fetched: fetched,
    rows_received: rowsReceived,
    fetched_fraction: round(fetched / Math.max(1, total), 4),
    fetch_requests: requests.length,
    distinct_pages: new Set(requests.map((r) => r.offset)).size,
    scroll_steps: all.length,
    scroll_step_p50_ms: pct(
      all.map((s) => s.ms),
      50,
    ),
    scroll_step_p95_ms: pct(
      all.map((s) => s.ms),
      95,
    ),
    scroll_step_max_ms: round(Math.max(...all.map((s) => s.ms))),
    scroll_step_to_paint_p50_ms: pct(
      all.map((s) => s.paint_ms),
      50,
    ),
    scroll_step_to_paint_p95_ms: pct(
      all.map((s) => s.paint_ms),
      95,
    ),
    jumps: { ...stats(jumps.map((s) => s.ms)), to_paint: stats(jumps.map((s) => s.paint_ms)) },
    wheel: {
      ...stats(wheel.map((s) => s.ms)),
      to_paint: stats(wheel.map((s) => s.paint_ms)),
      px_per_event: 400,
      note: 'from the wheel event timeStamp to the rows at the new position showing data',
    },
    fling: { ...fling, placeholder_wait_ms: round(fling.placeholder_wait_ms) },
  };
}

async function openRuns(
  page: Page,
  runs: { id: string; key: 'plan' | 'steps' }[],
  repeats: number,
  tag = '',
) {
  const samples: Record<'plan' | 'steps', OpenSample[]> = { plan: [], steps: [] };
  const cold: Partial<Record<'plan' | 'steps', OpenSample>> = {};
  for (let i = -1; i < repeats; i++) {
    for (const r of runs) {
      await inPage(page, 'openList()');
      const s = await inPage<OpenSample>(
        page,
        `openRun(${JSON.stringify({ id: r.id, count: ATTEMPTS, last: ATTEMPTS })})`,
      );
      if (!s.id_shown) throw new Error(`run ${r.id} is not the one shown`);
      if (i < 0) cold[r.key] = s;
      else samples[r.key].push(s);
      log(`open ${tag}${r.key} #${i + 1}: ${s.ms.toFixed(1)} ms (fetch end ${s.fetch_end_ms.toFixed(1)} ms)`);
    }
  }
  return { samples, cold };
}

/**
 * What if runs.get sent the prompt of the selected (last) attempt only? The service's `get` is wrapped
 * in this process for a few opens: it still reads and derives every event (server cost unchanged), but
 * the answer leaves out the other attempts' prompts — what the page gains from the smaller payload.
 */
async function whatIfLightRunsGet(
  page: Page,
  svc: ToolsmithService,
  runs: { id: string; key: 'plan' | 'steps' }[],
) {
  const service = await svc.runs();
  const original = service.get;
  service.get = (runId: string) => {
    const rec = original.call(service, runId);
    const last = rec.attempts.length - 1;
    return {
      ...rec,
      attempts: rec.attempts.map((a, i) => {
        if (i === last) return a;
        const { prompt: _prompt, ...rest } = a;
        return rest;
      }),
    };
  };
  try {
    const { samples } = await openRuns(page, runs, 6, 'light ');
    const f = (xs: OpenSample[]) => ({
      ...stats(xs.map((x) => x.ms)),
      body_kb: round((xs[0]?.body_bytes ?? 0) / 1024),
      response_end_p50_ms: pct(
        xs.map((x) => x.fetch_end_ms),
        50,
      ),
      timeline_p50_ms: pct(
        xs.map((x) => x.timeline_ms),
        50,
      ),
      editor_ready_p50_ms: pct(
        xs.map((x) => x.editor_ready_ms),
        50,
      ),
    });
    return { plan: f(samples.plan), steps: f(samples.steps) };
  } finally {
    service.get = original;
  }
}

async function measureOpen(page: Page, svc: ToolsmithService, runs: { id: string; key: 'plan' | 'steps' }[]) {
  const { samples, cold } = await openRuns(page, runs, OPEN_REPEATS);
  const light = await whatIfLightRunsGet(page, svc, runs);
  // The same runs.get outside the app: transfer (server included) vs JSON.parse in the page.
  const diag: Record<'plan' | 'steps', { fetch_text_ms: number; json_parse_ms: number }[]> = {
    plan: [],
    steps: [],
  };
  for (let i = 0; i < 6; i++)
    for (const r of runs)
      diag[r.key].push(
        await inPage<{ fetch_text_ms: number; json_parse_ms: number }>(
          page,
          `diagnoseGet(${JSON.stringify(r.id)})`,
        ),
      );
  const profiles: Partial<Record<'plan' | 'steps', unknown>> = {};
  if (process.env['TOOLSMITH_BENCH_PROFILE'] === '1')
    for (const r of runs) profiles[r.key] = await profileOpen(page, r.id, r.key);
  const summarize = (xs: OpenSample[], c: OpenSample | undefined, key: 'plan' | 'steps') => {
    const f = (k: keyof OpenSample) =>
      pct(
        xs.map((s) => Number(s[k])),
        50,
      );
    return {
      ...stats(xs.map((s) => s.ms)),
      target_ms: OPEN_TARGET_MS,
      met:
        pct(
          xs.map((s) => s.ms),
          95,
        ) <= OPEN_TARGET_MS,
      cold_ms: c ? round(c.ms) : undefined,
      note: 'hash navigation from #/runs until 200 timeline items + attempt view + Monaco data-ready, then next frame; cold (first open, Monaco workers) excluded from the percentiles',
      breakdown_p50_ms: {
        runs_get_request_start: f('fetch_start_ms'),
        runs_get_server_wait: f('server_wait_ms'),
        runs_get_response_end: f('fetch_end_ms'),
        timeline_rendered: f('timeline_ms'),
        attempt_view_rendered: f('attempt_view_ms'),
        editor_ready: f('editor_ready_ms'),
        dom_complete: f('dom_ms'),
        editor_text_visible: f('editor_text_ms'),
        long_task_total: f('long_task_ms'),
        longest_task: f('longest_task_ms'),
      },
      runs_get_body_kb: round((xs[0]?.body_bytes ?? 0) / 1024),
      runs_get_outside_app_p50_ms: {
        fetch_as_text: pct(
          diag[key].map((d) => d.fetch_text_ms),
          50,
        ),
        json_parse: pct(
          diag[key].map((d) => d.json_parse_ms),
          50,
        ),
      },
      what_if_prompt_of_selected_attempt_only: {
        ...light[key],
        note: 'same server work, but runs.get leaves out the prompts of the 199 other attempts (service.get wrapped in the bench)',
      },
      ...(profiles[key] ? { profile: profiles[key] } : {}),
    };
  };
  return {
    open_run_200: summarize(samples.plan, cold.plan, 'plan'),
    open_steps_200: summarize(samples.steps, cold.steps, 'steps'),
  };
}

interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * TOOLSMITH_BENCH_PROFILE=1: one more open of the run under the V8 sampling profiler and a Chromium
 * trace; writes test-results/ui-bench-<key>.cpuprofile and returns self time per function and the
 * main thread's time per trace event (script, style, layout, paint, GC).
 */
async function profileOpen(page: Page, id: string, key: string) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await inPage(page, 'openList()');
  await browser?.startTracing(page, {
    categories: ['devtools.timeline', 'v8', 'disabled-by-default-devtools.timeline'],
  });
  await cdp.send('Profiler.start');
  const s = await inPage<OpenSample>(
    page,
    `openRun(${JSON.stringify({ id, count: ATTEMPTS, last: ATTEMPTS })})`,
  );
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
  const trace = JSON.parse((await browser?.stopTracing())?.toString('utf8') ?? '{"traceEvents":[]}') as {
    traceEvents: {
      name: string;
      ph: string;
      dur?: number;
      pid: number;
      tid: number;
      args?: { name?: string };
    }[];
  };
  await cdp.detach();
  const dir = join(repoRoot, 'test-results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `ui-bench-${key}.cpuprofile`), JSON.stringify(profile));
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  profile.samples.forEach((nodeId, i) => {
    const n = byNode.get(nodeId);
    if (!n) return;
    const f = n.callFrame;
    const where = f.url ? `${f.url.split('/').pop()}:${f.lineNumber + 1}` : '';
    const name = `${f.functionName || '(anonymous)'} ${where}`.trim();
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const main = trace.traceEvents.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const byEvent = new Map<string, number>();
  for (const e of trace.traceEvents)
    if (main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur)
      byEvent.set(e.name, (byEvent.get(e.name) ?? 0) + e.dur / 1000);
  const top = (m: Map<string, number>, n: number) =>
    Object.fromEntries(
      [...m]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([k, v]) => [k, round(v)]),
    );
  return {
    open_ms: round(s.ms),
    js_self_ms_top: top(self, 15),
    main_thread_events_ms_top: top(byEvent, 15),
    note: 'trace events nest (RunTask > FunctionCall > ...); the cpuprofile is in test-results/',
  };
}

async function measureServer(svc: ToolsmithService, ids: { plan: string; steps: string }) {
  const runs = await svc.runs();
  const get = (id: string) => {
    const ev: number[] = [];
    const derive: number[] = [];
    const json: number[] = [];
    let bytes = 0;
    let events = 0;
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const events_ = runs.store.events(id);
      const t1 = performance.now();
      const rec = deriveRun(events_);
      const t2 = performance.now();
      const s = JSON.stringify({ ok: true, value: rec });
      const t3 = performance.now();
      ev.push(t1 - t0);
      derive.push(t2 - t1);
      json.push(t3 - t2);
      bytes = Buffer.byteLength(s);
      events = events_.length;
    }
    // What the payload is made of (per attempt field, summed over the 200 attempts).
    const rec = deriveRun(runs.store.events(id));
    const kb = (v: unknown) => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)) / 1024);
    const parts: Record<string, number> = {};
    for (const a of rec.attempts)
      for (const [k, v] of Object.entries(a)) {
        if (k === 'execution') {
          const { toolCalls, ...rest } = v as ExecutionResult;
          parts['execution.toolCalls'] = (parts['execution.toolCalls'] ?? 0) + kb(toolCalls);
          parts['execution (rest)'] = (parts['execution (rest)'] ?? 0) + kb(rest);
        } else parts[k] = (parts[k] ?? 0) + kb(v);
      }
    return {
      events,
      json_kb: round(bytes / 1024),
      json_kb_by_attempt_field: Object.fromEntries(
        Object.entries(parts)
          .sort((x, y) => y[1] - x[1])
          .filter(([, v]) => v >= 1)
          .map(([k, v]) => [k, round(v)]),
      ),
      read_events_p50_ms: pct(ev, 50),
      derive_p50_ms: pct(derive, 50),
      stringify_p50_ms: pct(json, 50),
    };
  };
  // A script event on a store of 100k runs (it also updates the run's full-text row).
  const appendScript = () => {
    const id = runs.store.createRun({
      task: 'append probe',
      sandbox: 'ecommerce',
      mode: 'plan',
      language: 'python',
      maxRetries: 0,
      maxSteps: 1,
    });
    const t: number[] = [];
    for (let n = 1; n <= 10; n++) {
      const t0 = performance.now();
      runs.store.append(id, 'script', {
        n,
        code: 'emit_result(1)',
        body: 'emit_result(1)',
        bodyStartLine: 1,
        language: 'python',
        source: 'llm',
      });
      t.push(performance.now() - t0);
    }
    runs.store.delete(id);
    return pct(t, 50);
  };
  const list = (offset: number) => {
    const t: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      runs.list({ limit: 100, offset });
      t.push(performance.now() - t0);
    }
    return pct(t, 50);
  };
  return {
    runs_get_plan_200: get(ids.plan),
    runs_get_steps_200: get(ids.steps),
    runs_list_page_p50_ms: { offset_0: list(0), offset_50000: list(50_000), offset_99900: list(99_900) },
    append_script_event_p50_ms: appendScript(),
  };
}

// ---------------------------------------------------------------- main

let svc: ToolsmithService | undefined;
let web: WebServer | undefined;
let browser: Browser | undefined;
let workspace: string | undefined;
let closing: Promise<void> | undefined;
/** Thrown after printing under TOOLSMITH_BENCH_ONLY=live: the rest of the bench is skipped. */
const ONLY_LIVE = Symbol('only live');

function cleanup(): Promise<void> {
  closing ??= (async () => {
    await browser?.close().catch(() => {});
    await web?.close().catch(() => {});
    await svc?.close().catch(() => {});
    if (workspace) removeWorkspace(workspace);
  })();
  return closing;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });

try {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}`);
  const loadBefore = round(loadavg()[0] ?? 0, 2);
  const staticDir = ensureRenderer();
  workspace = tempWorkspace('toolsmith-bench-ui-');
  svc = ToolsmithService.open(workspace, { sandboxFactory: createSandboxManager, log: silentLogger });

  // The big runs first (while the FTS table is small), the 100k list runs after (older timestamps).
  const seed0 = performance.now();
  const store = new RunStore(join(svc.files.dataDir, 'runs.db'));
  const ids = await seedBigRuns(svc, store);
  const seedBig = performance.now() - seed0;
  const liveBytes = liveRunBytes(store.events(ids.plan));
  if (process.env['TOOLSMITH_BENCH_ONLY'] === 'live') {
    store.close();
    writeStdout(JSON.stringify({ live_run_bytes_200: liveBytes }, null, 2) + '\n');
    throw ONLY_LIVE;
  }
  seedManyRuns(store, LIST_RUNS);
  const seedList = performance.now() - seed0 - seedBig;
  store.close();
  log(
    `seeded the two 200-attempt runs in ${(seedBig / 1000).toFixed(1)} s and ${LIST_RUNS} runs in ${(seedList / 1000).toFixed(1)} s`,
  );

  web = await startWebServer(svc, { staticDir });
  await svc.runs(); // the sandbox backend (Docker) and the run store, before the page asks
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`);
  });
  await page.addInitScript(PAGE_HELPERS);

  log('run list over 100k runs');
  const list = await measureList(page, web.url);
  log('opening the 200-attempt and 200-step runs');
  const open = await measureOpen(page, svc, [
    { id: ids.plan, key: 'plan' },
    { id: ids.steps, key: 'steps' },
  ]);
  const server = await measureServer(svc, ids);
  let bigList: Record<string, unknown> | undefined;
  if (BIG_RUNS > 0) {
    log(`run list pages over ${BIG_RUNS} runs (a separate store)`);
    const big = new RunStore(join(workspace, 'big-runs.db'));
    const s0 = performance.now();
    seedManyRuns(big, BIG_RUNS);
    const seeded = (performance.now() - s0) / 1000;
    bigList = {
      runs: BIG_RUNS,
      seed_s: round(seeded),
      ...measureListPages(big, BIG_RUNS),
      note: 'in-process list() of one page of 100; with_exact_count = count: true (the COUNT every page made before issue 14)',
    };
    big.close();
  }
  if (pageErrors.length) log(`page errors:\n${pageErrors.join('\n')}`);

  const result = {
    ...open,
    run_list_100k: list,
    server,
    live_run_bytes_200: liveBytes,
    ...(bigList ? { run_list_1m: bigList } : {}),
    seed_s: { runs_200_attempts: round(seedBig / 1000), runs_list: round(seedList / 1000) },
    page_errors: pageErrors.length,
    machine: {
      cpus: cpus().length,
      load_avg_1m_before: loadBefore,
      load_avg_1m_after: round(loadavg()[0] ?? 0, 2),
      chromium: browser.version(),
    },
  };
  writeStdout(JSON.stringify(result, null, 2) + '\n');
} catch (e) {
  if (e !== ONLY_LIVE) {
    process.exitCode = 1;
    log(`failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
} finally {
  await cleanup();
}
