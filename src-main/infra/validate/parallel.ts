/**
 * Validates large Python scripts on several threads at once, with the same synchronous answer as the
 * core validator (`validateScript`).
 *
 * Why: pyright's parse is ~85 % of validating a long script and cannot be made cheaper from outside, and
 * on the shared 2-core machines here a single thread's speed swings by 2x from one second to the next.
 * Measured with `npm run bench:validate` (2,000 lines, separate processes, alternating): one thread p50
 * 11-25 ms, two threads 13-16 ms; in quiet periods the two are within a millisecond of each other. Two
 * threads spend ~30 % more CPU in all. See docs/decisions.md "Validation speed".
 *
 * A script of at least `minChars` is cut into pieces of whole top-level statements (`splitPythonBySize`,
 * ~`PYTHON_CHUNK_CHARS` each). The calling thread and the validation threads take pieces one at a time
 * from shared memory (`takePiece`, a compare-and-swap) until none is left, so a thread that is slow or not
 * scheduled simply takes fewer: the caller never waits for work nobody has started. Then it waits
 * (`Atomics.wait`) about as long as one piece takes for the pieces threads are still on, validates any
 * still missing itself (a late answer is dropped), and merges the parts (`mergePythonParts`,
 * `finishPython`: names bound in one piece and called in another, the emit count, the order of
 * violations). Answers are read with `receiveMessageOnPort`: the API stays synchronous, like the core
 * validator every caller already uses. When a piece does not parse on its own (a cut inside a bracket or
 * a multi-line string, or a syntax error) the whole script is validated in one piece, so the answer is
 * always the one validating it whole gives.
 *
 * Threads start on the first large script (it is validated serially while they load and warm up), are
 * unref'd (they never keep a process alive) and replaced when one dies.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { splitPythonBySize } from '../../core/lang/python/split.ts';
import type { PythonChunk } from '../../core/lang/python/split.ts';
import {
  finishPython,
  mergePythonParts,
  PYTHON_CHUNK_CHARS,
  validatePython,
  validatePythonPart,
} from '../../core/lang/python/validate.ts';
import type { PythonPart } from '../../core/lang/python/validate.ts';
import { validateScript } from '../../core/lang/validate.ts';
import type { ScriptLanguage, ValidateOptions, ValidationResult } from '../../core/lang/violation.ts';
import { NEXT, READY, SIGNAL, takePiece } from './shared.ts';
import type { JobRequest, PieceReply } from './shared.ts';

export interface ParallelValidatorOptions {
  /** Validation threads besides the caller's (default: cores - 1, at most 3; 0 validates serially). */
  threads?: number;
  /** Scripts shorter than this (UTF-16 code units) are validated serially (default 12,000, ~400 lines). */
  minChars?: number;
  /** Longest wait for a piece a thread is working on before the caller validates it itself (default 10 s). */
  timeoutMs?: number;
  /** The thread entry (default: `threadUrl()`). */
  entry?: URL;
  /** Size of the pieces threads take (default `PYTHON_CHUNK_CHARS`). */
  pieceChars?: number;
}

/** How the last `validate()` call went (for tests and benchmarks). */
export type ValidationPath = 'serial' | 'parallel' | 'whole-after-split';

interface Thread {
  worker: Worker;
  port: MessagePort;
  slot: number;
  dead: boolean;
}

/**
 * The thread entry: the TypeScript source next to this file when running from src-main, else the bundled
 * `validate-thread.js` that electron.vite.config.ts emits in out/main (beside this code, or one folder up
 * when the bundler placed this code in a shared chunk).
 */
export function threadUrl(): URL {
  if (import.meta.url.endsWith('.ts')) return new URL('./thread.ts', import.meta.url);
  // Built from a variable so that bundlers leave the name alone.
  const file = 'validate-thread.js';
  const here = new URL('./' + file, import.meta.url);
  return existsSync(fileURLToPath(here)) ? here : new URL('../' + file, import.meta.url);
}

/**
 * The Worker's entry and whether it is code: when the package runs from a node_modules folder, its
 * TypeScript is stripped by a load hook (bin/strip-hook.mjs) that threads do not inherit, so the
 * thread installs it before loading its entry.
 */
function threadEntry(entry: URL): [URL | string, { eval?: boolean }] {
  const hook = process.env['TOOLSMITH_STRIP_HOOK'];
  const root = process.env['TOOLSMITH_STRIP_ROOT'];
  if (!hook || !root || !entry.href.endsWith('.ts')) return [entry, {}];
  const code =
    `import(${JSON.stringify(pathToFileURL(hook).href)})` +
    `.then((m) => { m.installStripHook(${JSON.stringify(root)}); return import(${JSON.stringify(entry.href)}); })`;
  return [code, { eval: true }];
}

export class ParallelValidator {
  readonly threadCount: number;
  readonly minChars: number;
  private readonly timeoutMs: number;
  private readonly entry: URL;
  private readonly pieceChars: number;
  /** NEXT, SIGNAL and one READY slot per thread (see shared.ts). */
  private readonly state: Int32Array;
  private threads: (Thread | undefined)[] = [];
  private nextId = 1;
  private closed = false;
  /** See `ValidationPath`. */
  lastPath: ValidationPath = 'serial';
  /** Pieces of the last parallel validation the calling thread did itself (for tests and benchmarks). */
  lastLocalPieces = 0;

  constructor(options: ParallelValidatorOptions = {}) {
    this.threadCount = Math.max(0, options.threads ?? Math.min(3, availableParallelism() - 1));
    this.minChars = options.minChars ?? 12_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.entry = options.entry ?? threadUrl();
    this.pieceChars = options.pieceChars ?? PYTHON_CHUNK_CHARS;
    this.state = new Int32Array(new SharedArrayBuffer((READY + this.threadCount) * 4));
  }

  /** Validates like `validateScript`, on several threads for a long Python script. */
  validate(code: string, language: ScriptLanguage, options: ValidateOptions): ValidationResult {
    this.lastPath = 'serial';
    if (language !== 'python' || code.length < this.minChars || this.threadCount === 0 || this.closed)
      return validateScript(code, language, options);
    const ready = this.readyThreads();
    const pieces = splitPythonBySize(code, this.pieceChars);
    if (ready.length === 0 || pieces.length < 2 || pieces.length > 0xffff)
      return validatePython(code, options);
    const id = this.nextId++;
    const generation = id & 0xffff;
    Atomics.store(this.state, NEXT, generation << 16);
    const job: JobRequest = { id, generation, pieces, options };
    for (const t of ready) t.port.postMessage(job);
    const parts: (PythonPart | undefined)[] = new Array<PythonPart | undefined>(pieces.length);
    const local = (i: number) => {
      const p = pieces[i] as PythonChunk;
      return validatePythonPart(p.code, options, p.firstLine);
    };
    let missing = pieces.length;
    let localCount = 0;
    let localMs = 0;
    for (;;) {
      const i = takePiece(this.state, generation, pieces.length);
      if (i < 0) break;
      const t0 = performance.now();
      parts[i] = local(i);
      localMs += performance.now() - t0;
      localCount++;
      missing--;
    }
    if (missing > 0) {
      // Threads hold at most one piece each: wait about as long as a piece takes here, then do the rest.
      const perPiece = localCount > 0 ? localMs / localCount : 5;
      const deadline = performance.now() + Math.min(this.timeoutMs, perPiece * 1.5 + 1);
      for (;;) {
        const signal = Atomics.load(this.state, SIGNAL);
        missing -= this.drain(ready, id, parts, local);
        const left = deadline - performance.now();
        if (missing === 0 || left <= 0) break;
        Atomics.wait(this.state, SIGNAL, signal, left);
      }
      for (let i = 0; i < parts.length; i++)
        if (parts[i] === undefined) {
          parts[i] = local(i);
          localCount++;
        }
    }
    this.lastLocalPieces = localCount;
    const merged = mergePythonParts(parts as PythonPart[]);
    if (merged.syntaxErrors > 0) {
      this.lastPath = 'whole-after-split';
      return finishPython(code, options, [validatePythonPart(code, options)]);
    }
    this.lastPath = 'parallel';
    return finishPython(code, options, [merged]);
  }

  /** Starts the threads (if not yet started) and resolves when all have warmed up. */
  async warmUp(): Promise<void> {
    this.ensureThreads();
    await Promise.all(
      this.threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            if (!t || t.dead || Atomics.load(this.state, READY + t.slot) === 1) return resolve();
            const done = () => resolve();
            t.worker.once('message', done);
            t.worker.once('exit', done);
          }),
      ),
    );
  }

  /** Ends the threads; later calls validate serially. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads;
    this.threads = [];
    await Promise.all(threads.map((t) => t?.worker.terminate().catch(() => 0)));
  }

  /** Reads the answers to job `id` that have arrived; returns how many pieces they filled. */
  private drain(
    threads: Thread[],
    id: number,
    parts: (PythonPart | undefined)[],
    local: (i: number) => PythonPart,
  ): number {
    let filled = 0;
    for (const t of threads)
      for (;;) {
        const m: { message: PieceReply } | undefined = receiveMessageOnPort(t.port);
        if (!m) break;
        const r = m.message;
        if (r.id !== id || parts[r.index] !== undefined) continue; // a late answer to an earlier job
        // A thread that failed on a piece: validate it here (an error, if any, surfaces as it would serially).
        parts[r.index] = 'part' in r ? r.part : local(r.index);
        filled++;
      }
    return filled;
  }

  private readyThreads(): Thread[] {
    this.ensureThreads();
    return this.threads.filter(
      (t): t is Thread => t !== undefined && !t.dead && Atomics.load(this.state, READY + t.slot) === 1,
    );
  }

  private ensureThreads(): void {
    if (this.closed) return;
    for (let slot = 0; slot < this.threadCount; slot++) {
      const t = this.threads[slot];
      if (t && !t.dead) continue;
      // A thread that failed to load or died is replaced (it validates nothing until warm again).
      Atomics.store(this.state, READY + slot, 0);
      this.threads[slot] = this.spawn(slot);
    }
  }

  private spawn(slot: number): Thread {
    const { port1, port2 } = new MessageChannel();
    const [entry, how] = threadEntry(this.entry);
    const worker = new Worker(entry, {
      ...how,
      workerData: { state: this.state.buffer, port: port2, slot },
      transferList: [port2],
      name: 'toolsmith-validate',
    });
    const thread: Thread = { worker, port: port1, slot, dead: false };
    worker.unref();
    port1.unref();
    worker.on('error', () => (thread.dead = true));
    worker.on('exit', () => (thread.dead = true));
    return thread;
  }
}
