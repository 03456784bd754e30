/** The one constructor of a failed ExecutionResult (core/sandbox/execution.ts), used by every layer. */
import { describe, expect, it } from 'vitest';
import { failedResult, failureMessage, infraResult } from '../../../src-main/core/sandbox/execution.ts';

describe('failedResult', () => {
  it('builds a result that ran nothing, with the error, runtime and isolation given', () => {
    expect(failedResult('rejected', { type: 'ValidationError', message: 'no' }, 'node')).toEqual({
      success: false,
      intermediates: [],
      logs: [],
      toolCalls: [],
      exitReason: 'rejected',
      isolation: 'none',
      durationMs: 0,
      runtime: 'node',
      error: { type: 'ValidationError', message: 'no', frames: [] },
    });
    const frames = [{ line: 2, name: '<script>' }];
    expect(
      failedResult('error', { type: 'SyntaxError', message: 'bad', frames }, 'bun', 'docker'),
    ).toMatchObject({ exitReason: 'error', isolation: 'docker', error: { frames } });
  });

  it('infraResult: exit reason infra, error type Infra', () => {
    expect(infraResult('no engine', 'python')).toEqual(
      failedResult('infra', { type: 'Infra', message: 'no engine' }, 'python'),
    );
    expect(infraResult('pool shut down', 'deno', 'gvisor')).toMatchObject({
      exitReason: 'infra',
      isolation: 'gvisor',
      error: { type: 'Infra', message: 'pool shut down' },
    });
  });

  it('failureMessage: `Type: message`, else the exit reason', () => {
    expect(failureMessage(infraResult('no engine', 'python'))).toBe('Infra: no engine');
    const { error: _e, ...noError } = failedResult('crashed', { type: 'x', message: 'y' }, 'python');
    expect(failureMessage(noError)).toBe('crashed');
  });
});
