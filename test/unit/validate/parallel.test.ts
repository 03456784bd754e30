/**
 * The ParallelValidator (real worker threads) answers exactly as the core validator does, on the paths
 * it can take: parallel, whole script after a part that does not parse, serial for short scripts, other
 * languages, before the threads are ready, after a thread died and after close.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  finishPython,
  PYTHON_CHUNK_CHARS,
  validatePython,
  validatePythonPart,
} from '../../../src-main/core/lang/python/validate.ts';
import type { ValidateOptions } from '../../../src-main/core/lang/violation.ts';
import { ParallelValidator } from '../../../src-main/infra/validate/parallel.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';

const corpusDir = fileURLToPath(new URL('../../fixtures/corpus/python/', import.meta.url));
const read = (sub: string) =>
  readdirSync(join(corpusDir, sub))
    .sort()
    .map((f) => readFileSync(join(corpusDir, sub, f), 'utf8'));
const attack = read('attack');
const benign = read('benign');
const OPTS: ValidateOptions = { tools: ['get_orders', 'get_user', 'check_inventory', 'get_product'] };
const onePiece = (code: string, o: ValidateOptions = OPTS) =>
  finishPython(code, o, [validatePythonPart(code, o)]);

/** Attack and benign corpus scripts one after another (those that parse alone), about `chars` long. */
function longScript(chars: number): string {
  const parses = (c: string) => !onePiece(c).violations.some((v) => v.rule === 'syntax');
  const all = [...attack.filter(parses), ...benign];
  let out = '';
  for (let i = 0; out.length < chars; i++) out += `${all[i % all.length] as string}\n`;
  return out;
}

let validators: ParallelValidator[] = [];
const make = (o: ConstructorParameters<typeof ParallelValidator>[0] = {}) => {
  const v = new ParallelValidator({ threads: 1, ...o });
  validators.push(v);
  return v;
};
afterEach(async () => {
  await Promise.all(validators.map((v) => v.close()));
  validators = [];
});

describe('ParallelValidator', () => {
  it(
    'validates long scripts on two threads with the answer of one-piece validation',
    async () => {
      const v = make();
      await v.warmUp();
      const code = longScript(60_000);
      for (const options of [OPTS, { ...OPTS, strict: true }, { tools: [] }]) {
        const result = v.validate(code, 'python', options);
        expect(v.lastPath).toBe('parallel');
        expect(result).toEqual(onePiece(code, options));
        expect(result.violations.length).toBeGreaterThan(50);
      }
      // Lines after the cut are reported at their place in the whole script.
      const tail = `${code}x = eval("1")\nemit_result(x)\n`;
      const evalLine = tail.split('\n').length - 2;
      expect(v.validate(tail, 'python', OPTS).violations.filter((x) => x.line === evalLine)).toHaveLength(1);
      expect(v.lastPath).toBe('parallel');
    },
    STARTS_PROCESSES_MS,
  );

  it(
    'validates the whole script when a part does not parse (syntax error or a cut inside a string)',
    async () => {
      const v = make();
      await v.warmUp();
      const code = longScript(40_000);
      const broken = `${code.slice(0, 30_000)}\nx = (1,\n${code.slice(30_000)}`;
      expect(v.validate(broken, 'python', OPTS)).toEqual(onePiece(broken));
      expect(v.lastPath).toBe('whole-after-split');
      // A long multi-line string whose column-0 lines look like statements: the scan keeps them together,
      // a wrong cut would only cost the fallback.
      const text = Array.from({ length: 3000 }, (_x, i) => `line_${i} = exec("${i}")`).join('\n');
      const tricky = `${code}T = """\n${text}\n"""\nemit_result(T)\n`;
      expect(v.validate(tricky, 'python', OPTS)).toEqual(onePiece(tricky));
    },
    STARTS_PROCESSES_MS,
  );

  it(
    'keeps short scripts, other languages and unready threads on the calling thread',
    async () => {
      const v = make();
      const code = longScript(40_000);
      // Threads start on the first long script; until they are warm, validation stays serial.
      expect(v.validate(code, 'python', OPTS)).toEqual(onePiece(code));
      expect(v.lastPath).toBe('serial');
      await v.warmUp();
      const short = benign[0] as string;
      expect(v.validate(short, 'python', OPTS)).toEqual(validatePython(short, OPTS));
      expect(v.lastPath).toBe('serial');
      const js =
        Array.from({ length: 2000 }, (_x, i) => `const r${i} = await get_orders();\n`).join('') +
        'emitResult(r0.data);\n';
      expect(js.length).toBeGreaterThan(v.minChars);
      expect(v.validate(js, 'js', OPTS).valid).toBe(true);
      expect(v.lastPath).toBe('serial');
      expect(make({ threads: 0 }).validate(code, 'python', OPTS)).toEqual(onePiece(code));
    },
    STARTS_PROCESSES_MS,
  );

  it(
    'replaces a thread that died, and validates serially after close',
    async () => {
      const v = make();
      await v.warmUp();
      const code = longScript(40_000);
      const thread = (v as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0];
      await thread?.worker.terminate();
      // The dead thread is dropped; this call is serial while its replacement warms up.
      expect(v.validate(code, 'python', OPTS)).toEqual(onePiece(code));
      await v.warmUp();
      expect(v.validate(code, 'python', OPTS)).toEqual(onePiece(code));
      expect(v.lastPath).toBe('parallel');
      await v.close();
      expect(v.validate(code, 'python', OPTS)).toEqual(onePiece(code));
      expect(v.lastPath).toBe('serial');
    },
    STARTS_PROCESSES_MS,
  );

  it(
    'validates a piece itself when the thread that took it never answers',
    async () => {
      // An entry that loads, says it is ready, takes a piece of each job and never answers.
      const mute = new URL('data:text/javascript,' + encodeURIComponent(MUTE_THREAD));
      const v = make({ entry: mute });
      await v.warmUp();
      const code = longScript(40_000);
      for (let i = 0; i < 3; i++) {
        expect(v.validate(code, 'python', OPTS)).toEqual(onePiece(code));
        expect(v.lastPath).toBe('parallel');
        // Every piece was done here (how long the caller waited first is a matter of speed: bench/).
        expect(v.lastLocalPieces).toBe(Math.round(code.length / PYTHON_CHUNK_CHARS));
      }
    },
    STARTS_PROCESSES_MS,
  );
});

const MUTE_THREAD = `
import { parentPort, workerData } from 'node:worker_threads';
const state = new Int32Array(workerData.state);
workerData.port.on('message', (job) => {
  const v = Atomics.load(state, 0);
  if (v >>> 16 === job.generation) Atomics.compareExchange(state, 0, v, v + 1);
});
Atomics.store(state, 2 + workerData.slot, 1);
parentPort.postMessage('ready');
`;
