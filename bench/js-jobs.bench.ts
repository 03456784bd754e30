/**
 * `node bench/js-jobs.bench.ts`: JS jobs on the node runtime (Docker, warm pool, through the service):
 * per job p50/p95 of a trivial script and of a script with one sandbox tool call, and the worker's
 * in-process cost of setting up a job's context (the script's runtime made inside it). `BENCH_RUNTIMES`
 * (default `node`) picks runtimes among node, bun and deno; `BENCH_JOBS` the number of jobs per case.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSandboxManager } from '../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../src-main/app/service.ts';
import { removeWorkspace, tempWorkspace } from '../test/support/workspace.ts';

const runtimes = (process.env['BENCH_RUNTIMES'] ?? 'node').split(',') as ('node' | 'bun' | 'deno')[];
const jobs = Number(process.env['BENCH_JOBS'] ?? 60);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(1));
};

const ws = tempWorkspace('toolsmith-js-bench-');
const cfg = join(ws, '.toolsmith/config.toml');
writeFileSync(
  cfg,
  readFileSync(cfg, 'utf8')
    .replace('[runtimes.bun]\nenabled = false', '[runtimes.bun]\nenabled = true')
    .replace('[runtimes.deno]\nenabled = false', '[runtimes.deno]\nenabled = true'),
);
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
const out: Record<string, unknown> = {};
try {
  for (const runtime of runtimes) {
    const run = (body: string) =>
      svc.execution.executeScript({ sandbox: 'ecommerce', runtime, language: 'js', body, timeoutMs: 30_000 });
    const cases = {
      trivial: 'emitResult(1);\n',
      one_tool_call: 'const u = await get_user({ user_id: "u3" });\nemitResult(u.data.email);\n',
    };
    const res: Record<string, unknown> = {};
    for (const [name, body] of Object.entries(cases)) {
      for (let i = 0; i < 5; i++) await run(body); // warm the pool
      const ms: number[] = [];
      for (let i = 0; i < jobs; i++) {
        const t0 = performance.now();
        const r = await run(body);
        ms.push(performance.now() - t0);
        if (!r.success) throw new Error(`${runtime} ${name}: ${JSON.stringify(r.error)}`);
      }
      res[name] = { p50: pct(ms, 50), p95: pct(ms, 95), jobs };
    }
    out[runtime] = res;
  }
} finally {
  await svc.close();
  removeWorkspace(ws);
}
console.log(JSON.stringify(out, null, 2));
