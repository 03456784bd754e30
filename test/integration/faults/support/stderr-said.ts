/**
 * What this process says on its stderr (the store's lines: an overwrite acted on, runs kept aside...):
 * every chunk written from the call on is kept in the array returned, and still written. Ends with the
 * test's `vi.restoreAllMocks()`.
 */
import { vi } from 'vitest';

export function stderrSaid(): string[] {
  const said: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    said.push(String(chunk));
    return write(chunk);
  });
  return said;
}
