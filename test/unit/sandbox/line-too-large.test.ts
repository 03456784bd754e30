/**
 * A job message past the 1 MB a worker reads is refused naming both sizes. Just past it (a script just
 * under the limit, its job's tool list over it) both read "1.0 MB" ("the job is 1.0 MB as a protocol
 * message, above the 1.0 MB a worker reads"): then they are said in bytes.
 */
import { describe, expect, it } from 'vitest';
import { LineTooLarge, MAX_HOST_LINE } from '../../../src-main/infra/sandbox/connection.ts';

describe('LineTooLarge', () => {
  it('just past the limit: both sizes in bytes', () => {
    expect(new LineTooLarge(MAX_HOST_LINE + 1234).message).toBe(
      `${MAX_HOST_LINE + 1234} bytes as a protocol message, above the ${MAX_HOST_LINE} bytes a worker reads`,
    );
  });
  it('well past it: in MB', () => {
    expect(new LineTooLarge(2 * MAX_HOST_LINE).message).toBe(
      '2.0 MB as a protocol message, above the 1.0 MB a worker reads',
    );
  });
});
