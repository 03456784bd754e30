/**
 * A rate-limit gate shared by every case of a suite run that uses one provider: when any call meets a
 * 429 (answered after retries, or failed), every other case waits out the same back-off before its
 * next request instead of hammering the provider in parallel.
 */
import { LlmError } from '../ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse, LlmRetry } from '../ports/llm.ts';

export class RateGate {
  private pausedUntil = 0;
  private readonly now: () => number;
  /** How many times the gate closed (a 429 seen). */
  pauses = 0;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Closes the gate for `ms` from now (never shortens a longer pause). */
  pause(ms: number): void {
    this.pauses++;
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /** Resolves when the gate is open. */
  async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const left = this.pausedUntil - this.now();
      if (left <= 0 || signal?.aborted) return;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        signal?.addEventListener(
          'abort',
          () => {
            clearTimeout(t);
            resolve();
          },
          { once: true },
        );
      });
    }
  }

  noteRetries(retries: readonly LlmRetry[]): void {
    const limited = retries.filter((r) => /429|rate limit/i.test(r.reason));
    const last = limited[limited.length - 1];
    if (last) this.pause(Math.max(last.waitMs, 250));
  }
}

/** A provider whose requests pass through a gate. */
export class GatedProvider implements LlmProvider {
  readonly id: string;
  readonly model: string;
  readonly kind: LlmProvider['kind'];
  readonly url: string | undefined;
  readonly maxTokens: number | undefined;
  readonly temperature: number | undefined;
  private readonly inner: LlmProvider;
  private readonly gate: RateGate;

  constructor(inner: LlmProvider, gate: RateGate) {
    this.inner = inner;
    this.gate = gate;
    this.id = inner.id;
    this.model = inner.model;
    this.kind = inner.kind;
    this.url = inner.url;
    this.maxTokens = inner.maxTokens;
    this.temperature = inner.temperature;
  }

  async generate(req: LlmRequest): Promise<LlmResponse> {
    await this.gate.wait(req.signal);
    try {
      // A 429 pauses every case at once, while this one waits out its own retry.
      return await this.inner.generate({
        ...req,
        onRetry: (r) => {
          this.gate.noteRetries([r]);
          req.onRetry?.(r);
        },
      });
    } catch (e) {
      if (e instanceof LlmError) {
        this.gate.noteRetries(e.retries);
        if (e.status === 429) this.gate.pause(1000);
      }
      throw e;
    }
  }
}
