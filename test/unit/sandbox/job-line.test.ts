/**
 * The size check every way in makes before validating a script counts the whole job line the worker
 * reads (the script escaped as JSON, the tool list, skills, inputs and the envelope), exactly: a job one
 * byte over the worker's limit is refused with the limit and what to do, one at the limit is not.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  jobLineBytes,
  jobMessage,
  jobTooLarge,
  MAX_JOB_LINE_BYTES,
  utf8Bytes,
  workerLine,
  type JobLineParts,
} from '../../../src-main/core/sandbox/job-line.ts';

const parts = (code: string): JobLineParts => ({
  code,
  language: 'python',
  tools: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`tool_${i}`, `tool_${i}`])),
  skills: ['summarise'],
  approve: ['tool_3'],
  inputs: { collected: ['é', '\u2028'] },
  timeoutMs: 30_000,
  maxOutputBytes: 51_200,
  maxToolCalls: 1000,
});

/** A script whose job line is `target` bytes: one string literal padded to it (ASCII, 1 byte each). */
function scriptOfJob(target: number, fill = 'a'): string {
  const base = 'x = ""\nemit_result(len(x))\n';
  const pad = target - jobLineBytes(parts(base));
  return `x = "${fill.repeat(pad / utf8Bytes(JSON.stringify(fill).slice(1, -1)))}"\nemit_result(len(x))\n`;
}

describe('the job line a worker reads', () => {
  it('counts what the connection sends, byte for byte', () => {
    const p = parts('print("\u2028 é 😀 \\" \\n")\n');
    const line = workerLine(jobMessage(randomUUID(), p));
    expect(jobLineBytes(p)).toBe(Buffer.byteLength(line));
    expect(line).not.toMatch(/[\u2028\u2029]/);
  });

  it('a job at the limit fits; one byte more is refused, naming its size, the limit and what to do', () => {
    const fits = scriptOfJob(MAX_JOB_LINE_BYTES);
    expect(jobLineBytes(parts(fits))).toBe(MAX_JOB_LINE_BYTES);
    expect(jobTooLarge(parts(fits))).toBeUndefined();
    const over = scriptOfJob(MAX_JOB_LINE_BYTES + 1);
    expect(jobTooLarge(parts(over))).toBe(
      `the script's job is 1,048,577 bytes as the one JSON line a sandbox worker reads (the script takes ${Buffer.byteLength(JSON.stringify(over)).toLocaleString('en-US')} bytes of it once escaped, the rest is its tool list, inputs and envelope), above the limit of 1,048,576 bytes (1 MB): a script this large holds data, which belongs in a tool or a file the tools read; nothing ran`,
    );
  });

  it('a script that fits alone as JSON but not with its tool list is refused', () => {
    // The script alone is under 1 MB as JSON (what was checked before); its job is not.
    const code = scriptOfJob(MAX_JOB_LINE_BYTES + 100);
    expect(Buffer.byteLength(JSON.stringify(code))).toBeLessThan(MAX_JOB_LINE_BYTES);
    expect(jobTooLarge(parts(code))).toContain('above the limit of 1,048,576 bytes');
  });

  it('counts escapes and multi-byte characters as sent', () => {
    // A line break takes 2 bytes, U+2028 6 (escaped for the node worker's readline), é 2, 😀 4.
    for (const [fill, each] of [
      ['\n', 2],
      ['\u2028', 6],
      ['é', 2],
      ['😀', 4],
    ] as const) {
      const base = jobLineBytes(parts(''));
      const n = Math.ceil((MAX_JOB_LINE_BYTES - base) / each);
      expect(jobLineBytes(parts(fill.repeat(n)))).toBe(base + n * each);
      expect(jobTooLarge(parts(fill.repeat(n - 1)))).toBeUndefined();
      expect(jobTooLarge(parts(fill.repeat(n + 1)))).toBeDefined();
    }
  });
});
