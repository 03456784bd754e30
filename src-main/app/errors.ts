/** Errors crossing a boundary are data: `{code, message, details}`; stacks stay in logs. */
export type ErrorCode =
  'invalid_argument' | 'not_found' | 'invalid_config' | 'refused' | 'infra' | 'internal';

export class ToolsmithError extends Error {
  override name = 'ToolsmithError';
  readonly code: ErrorCode;
  readonly details: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.code = code;
    this.details = details;
  }
  toData(): { code: ErrorCode; message: string; details?: unknown } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}
