/** A provider that answers from a recorded run's LLM outputs, in order: deterministic replay, no network. */
import { LlmError } from '../ports/llm.ts';
import type { LlmProvider, LlmRequest, LlmResponse, WithheldKind } from '../ports/llm.ts';
import type { RunEvent } from '../records/events.ts';

export class ReplayProvider implements LlmProvider {
  readonly id = 'replay';
  readonly model: string;
  private readonly answers: {
    text: string;
    model: string;
    provider: string;
    promptTokens: number;
    completionTokens: number;
    truncated?: { reason: string; maxTokens: number };
    withheld?: string;
    withheldKind?: WithheldKind;
    functionCall?: string;
  }[];
  private next = 0;

  constructor(events: readonly RunEvent[]) {
    this.answers = events.flatMap((e) => (e.type === 'llm_response' ? [e.data] : []));
    this.model = this.answers[0]?.model ?? 'replay';
  }

  get remaining(): number {
    return this.answers.length - this.next;
  }

  generate(req: LlmRequest): Promise<LlmResponse> {
    const a = this.answers[this.next++];
    if (!a) return Promise.reject(new LlmError(this.id, 'replay: the recorded run has no more LLM answers'));
    req.onToken?.(a.text);
    // A replay sends nothing to any LLM: it spends no tokens (the recorded counts stay on the source run).
    // Each answer names the provider and model that wrote it when the run ran (the tier says `replay`).
    return Promise.resolve({
      text: a.text,
      promptTokens: 0,
      completionTokens: 0,
      model: a.model,
      latencyMs: 0,
      provider: a.provider,
      retries: [],
      // A recorded answer that was cut is cut again: its script is not run in the replay either.
      ...(a.truncated ? { truncated: a.truncated } : {}),
      // A recorded answer that was not the model's text (a refusal, a content filter, a function call) is
      // withheld again: its text (a script the filter stopped) is not run in the replay either.
      ...(a.withheld ? { withheld: a.withheld } : {}),
      ...(a.withheldKind ? { withheldKind: a.withheldKind } : {}),
      // (and a function call beside text that held no script is named again)
      ...(a.functionCall ? { functionCall: a.functionCall } : {}),
    });
  }
}
