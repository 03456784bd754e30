/**
 * Skills made through the CLI, as a user makes them (`skill create` with one test case), for the tests
 * of skill calls and their records.
 */
import { expect } from 'vitest';

/** `skill create NAME --sandbox SANDBOX --file FILE --case {"args": ..., "expect": ...}` as CLI arguments. */
export function skillCreateArgs(
  name: string,
  file: string,
  testCase: { args: unknown; expect: unknown },
  sandbox = 'ecommerce',
): string[] {
  return ['skill', 'create', name, '--sandbox', sandbox, '--file', file, '--case', JSON.stringify(testCase)];
}

type CliRun = (args: string[]) => Promise<{ code: number | null; out: string; err: string }>;

/** Creates each skill through `cli` (a CLI process as a user runs it): each test passes, each is offered. */
export async function createSkills(
  cli: CliRun,
  skills: readonly (readonly [name: string, file: string, args: unknown, expected: unknown])[],
  sandbox = 'ecommerce',
): Promise<void> {
  for (const [name, file, args, expected] of skills) {
    const made = await cli(skillCreateArgs(name, file, { args, expect: expected }, sandbox));
    expect(made.out + made.err).toContain('offered to scripts');
    expect(made.code, made.out + made.err).toBe(0);
  }
}
