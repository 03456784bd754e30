/** Errors crossing a boundary are data: `{code, message, details}`; stacks stay in logs. */
import type { ApiError, ErrorCode } from '../contract/api.ts';

export type { ErrorCode };

export class ToolsmithError extends Error {
  override name = 'ToolsmithError';
  readonly code: ErrorCode;
  readonly details: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.code = code;
    this.details = details;
  }
  toData(): ApiError {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
