import { describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { mapFrames } from '../../../src-main/infra/sandbox/backend.ts';

const result = (type: string, message: string, line: number): ExecutionResult => ({
  success: false,
  intermediates: [],
  logs: [],
  toolCalls: [],
  exitReason: type === 'ValidationError' ? 'rejected' : 'error',
  isolation: 'docker',
  durationMs: 1,
  runtime: 'python',
  error: { type, message, frames: [{ line, name: '<script>' }] },
});

describe('mapFrames', () => {
  it('reports frames in lines of the body', () => {
    const r = mapFrames(result('KeyError', "'name'", 7), 5);
    expect(r.error?.frames[0]?.line).toBe(3);
    expect(r.error?.message).toBe("'name'");
  });

  it("maps the worker's own validation messages to body lines", () => {
    const r = mapFrames(
      result('ValidationError', 'line 6: statistics.sys is not available; line 9: x', 6),
      5,
    );
    expect(r.error?.message).toBe('line 2: statistics.sys is not available; line 5: x');
  });

  it('leaves a script without preamble alone', () => {
    const r = result('ValidationError', 'line 2: no', 2);
    expect(mapFrames(r, 1)).toBe(r);
  });
});
