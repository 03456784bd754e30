/**
 * The job line a sandbox worker reads: one JSON message on one line, at most MAX_JOB_LINE_BYTES. Built
 * here, once, for both the sandbox connection that sends it (infra/sandbox/connection.ts) and the check
 * every way in makes before validating a script (`jobTooLarge`): the script alone could fit while its
 * job, with the tool list, skills, inputs and envelope, did not, and the worker refused it after seconds
 * of validation.
 */
import type { JsonValue } from '../tools/model.ts';

/** The most a worker reads as one line (`MAX_LINE` in the Python and Node workers), in bytes. */
export const MAX_JOB_LINE_BYTES = 1024 * 1024;

/** A job's time limit at most, and when none is given (the sandbox backend's clamp and default). */
export const JOB_TIMEOUT_MAX_MS = 600_000;
export const JOB_TIMEOUT_DEFAULT_MS = 300_000;

/** What a job line holds besides its id. */
export interface JobLineParts {
  code: string;
  language?: string;
  /** Script-visible name -> tool name. */
  tools: Record<string, string>;
  skills?: readonly string[];
  /** Tools whose calls wait for a person. */
  approve?: readonly string[];
  inputs?: Record<string, JsonValue>;
  timeoutMs: number;
  maxOutputBytes: number;
  maxToolCalls: number;
}

/** The job message, its fields in the order they are sent. */
export function jobMessage(id: string, p: JobLineParts): Record<string, unknown> {
  return {
    type: 'job',
    id,
    code: p.code,
    language: p.language ?? 'python',
    tools: p.tools,
    ...(p.skills?.length ? { skills: p.skills } : {}),
    ...(p.approve?.length ? { approve: p.approve } : {}),
    inputs: p.inputs ?? {},
    timeout_ms: p.timeoutMs,
    max_output_bytes: p.maxOutputBytes,
    max_tool_calls: p.maxToolCalls,
  };
}

/**
 * A message as the line sent to a worker (without its line break). U+2028 and U+2029 escaped
 * (JSON.parse restores them): Node 24's readline, which the node worker reads its lines with, ends a
 * line at either, so a script, argument or tool result holding one was split into two lines that did
 * not parse, and the job waited for its time limit.
 */
export const workerLine = (msg: object): string =>
  JSON.stringify(msg).replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));

/** The UTF-8 length of a string, in bytes (no copy: core runs where Buffer may not). */
export function utf8Bytes(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // a pair: 2 UTF-16 units, 4 bytes
        i++;
      } else n += 2;
    } else n += 2;
  }
  return n;
}

/** A job id as the connection makes it (a UUID): what the check counts in its place. */
const ID_PLACEHOLDER = '00000000-0000-0000-0000-000000000000';

/** The bytes of the job line these parts make, as the worker would receive it. */
export const jobLineBytes = (p: JobLineParts): number => utf8Bytes(workerLine(jobMessage(ID_PLACEHOLDER, p)));

const bytes = (n: number): string => `${n.toLocaleString('en-US')} bytes`;

/** The advice that ends every refusal of a script for its size. */
export const TOO_LARGE_ADVICE =
  'a script this large holds data, which belongs in a tool or a file the tools read; nothing ran';

/**
 * The one refusal of a job too large for the worker's line: its size and what the script takes of it,
 * the limit, and what to do.
 */
export const jobTooLargeMessage = (jobBytes: number, scriptBytes: number): string =>
  `the script's job is ${bytes(jobBytes)} as the one JSON line a sandbox worker reads (the script takes ${bytes(scriptBytes)} of it once escaped, the rest is its tool list, inputs and envelope), above the limit of ${bytes(MAX_JOB_LINE_BYTES)} (1 MB): ${TOO_LARGE_ADVICE}`;

/**
 * Why a job would be refused for its size (undefined when it fits): checked before a script is
 * validated, on every way in, with what the worker would really receive.
 */
export function jobTooLarge(p: JobLineParts): string | undefined {
  // Cheap first: most scripts are far below the limit even if every character took 6 bytes.
  const rest = jobLineBytes({ ...p, code: '' });
  if (rest + p.code.length * 6 <= MAX_JOB_LINE_BYTES) return undefined;
  const script = utf8Bytes(workerLine([p.code])) - 2; // the script as a JSON string, its quotes included
  const total = rest + script - 2; // the empty script's quotes are counted in `rest`
  return total > MAX_JOB_LINE_BYTES ? jobTooLargeMessage(total, script) : undefined;
}
