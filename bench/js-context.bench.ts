/**
 * `node bench/js-context.bench.ts`: what setting up one JS job's context costs inside the worker, the
 * script's runtime made inside the context (the current worker) against helpers handed in from the
 * worker's realm (the former design), interleaved in one process. Trusted code only: a trivial script
 * and a bridge that answers every call.
 */
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const src = readFileSync(new URL('../sandbox-images/node/worker.mjs', import.meta.url), 'utf8');
const start = src.indexOf('function contextRuntime(');
const runtimeSource = src.slice(start, src.indexOf('\n}\n', start) + 2);
const code = 'emitResult({ ok: true });';
const bridge = () => '+';

function inside(): void {
  const context = vm.createContext(vm.constants.DONT_CONTEXTIFY, {
    codeGeneration: { strings: false, wasm: false },
  });
  const compile = (body: string, filename: string) =>
    vm.compileFunction(body, [], { parsingContext: context, filename });
  void (compile('return new Error()', '<script>')() as Error).stack;
  const runtime = compile(`return (${runtimeSource});`, '<runtime>')() as (...a: unknown[]) => {
    start: (f: unknown) => void;
  };
  const script = compile(`'use strict'; return (async function () {${code}\n}).call(undefined);`, '<script>');
  runtime(bridge, '{}', '["get_user","get_orders"]', '51200').start(script);
}

function handedIn(): void {
  const ctx: Record<string, unknown> = {
    emitResult: (v: unknown) => JSON.stringify(v),
    emitIntermediate: (v: unknown) => JSON.stringify(v),
    emitLog: (t: unknown) => String(t),
    credential: () => '',
    console: { log: () => {} },
    get_user: () => Promise.resolve({}),
    get_orders: () => Promise.resolve({}),
  };
  const context = vm.createContext(ctx, { codeGeneration: { strings: false, wasm: false } });
  void new vm.Script(`(async () => {${code}\n})()`, { filename: '<script>' }).runInContext(context);
}

const n = Number(process.env['BENCH_JOBS'] ?? 300);
const times: Record<string, number[]> = { inside: [], handed_in: [] };
for (let i = 0; i < 20; i++) {
  inside();
  handedIn();
}
for (let i = 0; i < n; i++) {
  for (const [name, f] of [
    ['inside', inside],
    ['handed_in', handedIn],
  ] as const) {
    const t0 = performance.now();
    f();
    times[name]?.push(performance.now() - t0);
  }
}
const pct = (xs: number[], p: number) =>
  Number(([...xs].sort((a, b) => a - b)[Math.floor((p / 100) * xs.length)] ?? 0).toFixed(3));
console.log(
  JSON.stringify(
    Object.fromEntries(
      Object.entries(times).map(([k, v]) => [k, { p50_ms: pct(v, 50), p95_ms: pct(v, 95) }]),
    ),
    null,
    2,
  ),
);
