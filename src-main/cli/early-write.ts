/**
 * The output of an answer given before main loads (bin/start.mjs: the verb cache, `validate FILE` from the
 * sandboxes snapshot, a cached `image build`), written with write(2) on descriptors 1 and 2 instead of
 * process.stdout and process.stderr: making those streams loads Node's stream modules, and for a pipe
 * (how a script or a test runs the command) its net and libuv stream bindings too, ~4-5 ms of CPU of a
 * ~25 ms start (docs/scaling.md, "CLI start"). A write error ends as main's does: the reader gone (EPIPE)
 * quietly with exit 0, any other one line on standard error and exit 3.
 */
import { OutputError } from '../core/errors.ts';

const { writeSync } = process.getBuiltinModule('node:fs');

let pause: Int32Array | undefined;

/**
 * Writes all of `text` to `fd`; the code of the error that stopped it, or undefined. A descriptor the
 * parent left non-blocking (EAGAIN on a full pipe) is written again after a millisecond's sleep.
 */
export function writeAll(fd: number, text: string): string | undefined {
  let bytes = Buffer.from(text);
  while (bytes.length > 0) {
    try {
      bytes = bytes.subarray(writeSync(fd, bytes));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
      if (code !== 'EAGAIN') return code;
      Atomics.wait((pause ??= new Int32Array(new SharedArrayBuffer(4))), 0, 0, 1);
    }
  }
  return undefined;
}

/** Prints an answer (`out` on standard output, `err` on standard error); the exit code to end with. */
export function printEarly(out: string, err: string, code: number): number {
  const failed = writeAll(1, out);
  if (failed === 'EPIPE') return 0;
  if (failed) {
    writeAll(2, `toolsmith: ${new OutputError(failed).message}\n`);
    return 3;
  }
  if (err) writeAll(2, err);
  return code;
}
