/**
 * Many small runs written straight through the run store (oldest first, a second apart), for the list
 * benches: a task naming one of eight words, an LLM answer, and a finish (a quarter failed, with an error).
 */
import type { RunStore } from '../../src-main/infra/store/run-store.ts';

const fence = (body: string) => '```python\n' + body + '\n```';
export const SEED_WORDS = [
  'orders',
  'inventory',
  'tickets',
  'refund',
  'users',
  'warehouse',
  'monitor',
  'keyboard',
];
const STATUSES = ['succeeded', 'failed', 'cancelled', 'succeeded'] as const;

export function seedManyRuns(
  store: RunStore,
  count: number,
  opts: { onProgress?: (done: number) => void } = {},
): void {
  const words = SEED_WORDS;
  const t0 = Date.now() - count * 1000 - 60_000;
  for (let start = 0; start < count; start += 10_000) {
    store.batch(() => {
      for (let i = start; i < Math.min(count, start + 10_000); i++) {
        const ts = t0 + i * 1000;
        const id = store.createRun(
          {
            task: `check ${words[i % 8]} number ${i}`,
            sandbox: i % 2 ? 'ecommerce' : 'support',
            mode: i % 5 === 0 ? 'interactive' : 'plan',
            language: 'python',
            maxRetries: 3,
            maxSteps: 8,
            provider: 'openai',
            model: 'qwen2.5-coder:7b',
          },
          undefined,
          ts,
        );
        store.append(id, 'tier', { n: 1, tier: 'llm', provider: 'openai' }, ts + 1);
        store.append(
          id,
          'llm_response',
          {
            n: 1,
            text: fence(`r = get_${words[(i * 7) % 8]}()\nemit_result(r.data)`),
            promptTokens: 900 + (i % 300),
            completionTokens: 40 + (i % 60),
            model: 'qwen2.5-coder:7b',
            provider: 'openai',
            latencyMs: 800 + (i % 700),
            retries: [],
          },
          ts + 2,
        );
        const status = STATUSES[i % 4] as 'failed';
        store.append(
          id,
          'run_finished',
          { status, ...(status === 'failed' ? { error: `KeyError: 'k${i % 97}'` } : {}) },
          ts + 400 + (i % 900),
        );
      }
    });
    opts.onProgress?.(Math.min(count, start + 10_000));
  }
}
