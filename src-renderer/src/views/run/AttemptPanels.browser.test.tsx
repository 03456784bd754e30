import { describe, expect, it } from 'vitest';
import { render } from 'vitest-browser-react';
import type { AttemptView } from '../../../../src-main/contract/api.ts';
import { LlmPanel } from './AttemptPanels.tsx';

const attempt = (llmErrors: { provider: string; message: string }[]) =>
  ({
    n: 1,
    llm: undefined,
    corrections: [],
    retries: [],
    llmErrors: llmErrors.map((e) => ({ ...e, retries: [] })),
  }) as unknown as AttemptView;

describe('LlmPanel', () => {
  it('names the provider of an LLM error once', async () => {
    const screen = await render(
      <LlmPanel
        a={attempt([
          { provider: 'local', message: 'local: connection failed: ECONNREFUSED http://127.0.0.1:9/v1' },
          { provider: 'cloud', message: 'rate limited' },
        ])}
        live={undefined}
      />,
    );
    const errors = screen
      .getByTestId('llm-error')
      .elements()
      .map((e) => e.textContent);
    expect(errors).toEqual([
      'local: connection failed: ECONNREFUSED http://127.0.0.1:9/v1',
      'cloud: rate limited',
    ]);
  });
});
