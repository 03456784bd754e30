/**
 * explainOutputLimit (core/sandbox/execution.ts) gives the output cap's advice to a job stopped at the
 * cap, told by the job's exit reason: an error a script or a tool raised under the name OutputLimit is
 * its own, and is returned as it is (before, "card declined" read "card declined: the piece of output
 * that went over the output cap ...", protocol.md: the host never classifies by the type a job names).
 */
import { describe, expect, it } from 'vitest';
import { explainOutputLimit } from '../../../src-main/core/sandbox/execution.ts';

const sent = { logs: [], intermediates: [] };

describe('explainOutputLimit', () => {
  it('leaves an error named OutputLimit alone when the job was not stopped at the cap', () => {
    const own = { type: 'OutputLimit', message: 'card declined', frames: [] };
    expect(explainOutputLimit(own, 'error', sent, 51200)).toBe(own);
  });

  it("explains the worker's OutputLimit of a job stopped at the cap", () => {
    const capped = {
      type: 'OutputLimit',
      message: "the script's output exceeded 51200 bytes (its prints)",
      frames: [],
    };
    const said = explainOutputLimit(capped, 'output_limit', sent, 51200);
    expect(said.message).toMatch(
      /^the script's output exceeded 51200 bytes: its prints \(stdout and log lines\) went over the output cap of 51200 bytes \(limits\.output_kb = 50 in \.toolsmith\/config\.toml\)/,
    );
  });
});
