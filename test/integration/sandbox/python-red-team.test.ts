/**
 * The Python red-team corpus (test/fixtures/corpus/python/attack) against the real worker, with the host
 * validator OFF: the worker's own AST re-check must refuse every escape, and when a syntactic path is
 * missed by both checks the runtime wall must still give the script nothing (frames, code objects,
 * forged tool records).
 *
 * "Missed by both checks" is played by a test-only sandbox tool, `unchecked`: trusted tool code that runs
 * the attack's source in the calling script's own namespace (its safe builtins, module stand-ins, tools and
 * emit_*), compiled as `<script>` but never re-checked, exactly as the script itself would run had the
 * re-check let it through. Run on docker (runc) and bubblewrap; the whole corpus is counted on docker.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { validatePython } from '../../../src-main/core/lang/python/validate.ts';
import { ISOLATION_LEVELS, runPython, testBackend } from '../../support/sandbox.ts';
import type { TestFactory } from '../../support/sandbox.ts';
import { repoRoot } from '../../support/workspace.ts';

const CORPUS = join(repoRoot, 'test/fixtures/corpus/python');
const ORDERS = [{ id: 'o1', status: 'pending', total: 10.5, user_id: 'u1', quantity: 2, name: 'pen' }];
const toolsSource = `
import sys


@tool(grade=(0, 0))
def get_orders(status: str = "") -> ToolResponse:
    """Orders."""
    return ToolResponse(success=True, data=${JSON.stringify(ORDERS)})


@tool(grade=(0, 0))
def get_user(user_id: str = "") -> ToolResponse:
    """A user."""
    return ToolResponse(success=True, data={"id": "u1", "name": "Ada"})


@tool(grade=(0, 0))
def check_inventory(product_id: str = "") -> ToolResponse:
    """Stock."""
    return ToolResponse(success=True, data={"product_id": "p1", "quantity": 3})


@tool(grade=(0, 0))
def get_product(product_id: str = "") -> ToolResponse:
    """A product."""
    return ToolResponse(success=True, data={"id": "p1", "name": "pen", "price": 1.5})


@tool(grade=(0, 0))
def unchecked(source_hex: str) -> ToolResponse:
    """Test only: runs the source in the calling script's namespace, compiled as <script>, not re-checked."""
    caller = sys._getframe(1)
    while caller.f_code.co_filename != "<script>":  # past the tool-call wrapper's frames
        caller = caller.f_back
    script_globals = caller.f_globals
    exec(compile(bytes.fromhex(source_hex).decode(), "<script>", "exec"), script_globals)
    return ToolResponse(success=True)


@tool(grade=(0, 0))
def stamp() -> ToolResponse:
    """Test only: tool code that runs a process of its own (its author's choice)."""
    import os
    return ToolResponse(success=True, data={"uid": os.popen("id").read().strip()})
`;
const TOOLS = ['get_orders', 'get_user', 'check_inventory', 'get_product', 'unchecked', 'stamp'];

/** Host rules the worker does not repeat (tidiness, or a guard at run time): see python-worker-parity. */
const HOST_ONLY = new Set([
  'rebind-framework',
  'tool-not-called',
  'missing-emit',
  'empty-script',
  'unknown-function',
  'guarded-type',
]);
const corpus = (sub: string) =>
  readdirSync(join(CORPUS, sub))
    .filter((f) => f.endsWith('.py'))
    .sort()
    .map((f) => ({ name: f, code: readFileSync(join(CORPUS, sub, f), 'utf8') }));
const attacks = corpus('attack').map((a) => ({
  ...a,
  rule: /^# expect: ([a-z-]+)/.exec(a.code)?.[1] ?? '',
}));
const uncheckedScript = (code: string) =>
  `unchecked(source_hex="${Buffer.from(code, 'utf8').toString('hex')}")\n`;

/**
 * The worst ones: each reaches a frame, a code object or the worker's globals, or forges a tool record,
 * when nothing refuses it. At run time each must end in the wall's PermissionError or a read-only
 * ToolResponse.
 */
const WORST: Record<string, RegExp> = {
  '004-gen-frame-walk.py': /^PermissionError: gi_frame is not available to scripts/,
  '005-tb-frame.py': /^PermissionError: tb_frame is not available to scripts/,
  '058-gi-code.py': /^PermissionError: gi_code is not available to scripts/,
  '101-match-gen-frame.py': /^PermissionError: gi_frame is not available to scripts/,
  '102-match-frame-back-globals.py': /^PermissionError: gi_frame is not available to scripts/,
  '103-match-frame-builtins.py': /^PermissionError: gi_frame/,
  '104-match-exception-traceback.py': /^PermissionError: tb_frame/,
  '105-match-str-format.py': /^PermissionError: gi_frame/,
  '106-match-str-format-map.py': /^PermissionError: gi_frame/,
  '107-match-func-code.py': /^PermissionError: __code__/,
  '108-match-gi-code.py': /^PermissionError: gi_code/,
  '113-getattr-gi-frame.py': /^AttributeError: attribute 'gi_frame' is not available/,
  '117-format-literal-frame-walk.py': /^PermissionError: gi_frame/,
  '118-format-map-key-walk.py': /^PermissionError: gi_frame/,
  '119-str-format-unbound-alias.py': /^PermissionError: gi_frame/,
  '122-patch-tool-response-to-dict.py': /^AttributeError: ToolResponse is read-only/,
  '123-patch-tool-response-alias.py': /^AttributeError: ToolResponse is read-only/,
  '124-patch-type-of-response.py': /^AttributeError: ToolResponse is read-only/,
  '125-response-data-overwrite.py': /^AttributeError: a ToolResponse is read-only/,
  '142-walrus-comprehension-frame.py': /^PermissionError: gi_frame/,
  '144-nfkc-attribute.py': /^PermissionError: gi_frame/,
  '145-nfkc-match-keyword.py': /^PermissionError: gi_frame/,
  '151-reduce-getattr-chain.py': /^AttributeError: attribute 'gi_frame' is not available/,
  '154-fstring-conversion-frame.py': /^PermissionError: gi_frame/,
  '156-annotation-frame.py': /^PermissionError: gi_frame/,
  '157-default-arg-frame.py': /^PermissionError: gi_frame/,
  '162-response-reinit.py': /^AttributeError: a ToolResponse is read-only/,
  '163-tool-code-swap.py': /^PermissionError: __code__/,
  '167-format-item-then-attribute.py': /^PermissionError: gi_frame/,
  '168-format-key-bang-walk.py': /^PermissionError: gi_frame/,
  '169-format-key-colon-walk.py': /^PermissionError: gi_frame/,
};

/**
 * The public payloads' technique, past both static checks: reach os (or subprocess) through some module's
 * globals and run `id` through os.popen, whose audit events are raised from os.py / subprocess.py, never
 * from the script's own frame. The wall refuses while script code is anywhere on the stack.
 */
const POPEN: [string, string][] = [
  ['random globals', 'os = random.seed.__func__.__globals__["_os"]\nemit_result(os.popen("id").read())\n'],
  [
    'subclasses walk to os._wrap_close',
    'c = [k for k in ().__class__.__base__.__subclasses__() if k.__name__ == "_wrap_close"][0]\nemit_result(c.__init__.__globals__["popen"]("id").read())\n',
  ],
  [
    "the guarded getattr's globals",
    'os = getattr.__globals__["sys"].modules["os"]\nemit_result(os.popen("id").read())\n',
  ],
  [
    "the emit helpers' globals",
    'os = emit_result.__func__.__globals__["os"]\nemit_result(os.popen("id").read())\n',
  ],
  [
    "a tool's module globals",
    // (the wrapper's closure in any order: every function cell's own closure)
    'inner = [c.cell_contents for c in get_orders.__closure__ if type(c.cell_contents).__name__ == "function"]\nfns = [c.cell_contents for f in inner for c in (f.__closure__ or ())]\nfn = [f for f in fns if type(f).__name__ == "function" and f.__name__ == "get_orders"][0]\nemit_result(fn.__globals__["sys"].modules["os"].popen("id").read())\n',
  ],
  [
    'statistics globals',
    'm = statistics.mean.__globals__["sys"].modules\nemit_result(m["os"].popen("id").read())\n',
  ],
  [
    'os.spawnv (Python fork)',
    'os = random.seed.__func__.__globals__["_os"]\nemit_result(os.spawnv(os.P_WAIT, "/usr/bin/id", ["id"]))\n',
  ],
  [
    'subprocess module, imported by a stdlib frame',
    'os = random.seed.__func__.__globals__["_os"]\nsp = os.popen.__globals__["sys"].modules.get("subprocess")\nemit_result(sp.check_output(["id"]).decode() if sp else os.popen("id").read())\n',
  ],
];

/** Past both checks, attacks on the runtime wall itself (its state, the script's builtins, its helpers). */
const WALL: [string, string, RegExp][] = [
  [
    'os.popen in threads of its own (no script frame under one of them)',
    'm = random.seed.__func__.__globals__["_os"].sys.modules\nout = []\ndef grab(f):\n    try:\n        out.append(f())\n    except Exception as e:\n        out.append(str(e))\nm["_thread"].start_new_thread(grab, (lambda: m["os"].popen("id").read(),))\nm["_thread"].start_new_thread(m["os"].popen, ("id",))\nm["_thread"].start_new_thread(grab, (m["functools"].partial(m["os"].popen, "id"),))\nfor i in range(200):\n    if len(out) == 2:\n        break\n    time.sleep(0.02)\nraise RuntimeError(" | ".join(str(o) for o in out))\n',
    /^RuntimeError: .*is not available.* \| .*is not available/,
  ],
  [
    "rewriting the checks module's globals",
    'g = getattr.__globals__\ng["_getframe"] = lambda n=0: None\ng["_REAL_BUILTINS"] = __builtins__\ng["SCRIPT_EVENTS"] = frozenset(["os.system", "subprocess.Popen", "open", "import"])\nos = random.seed.__func__.__globals__["_os"]\nemit_result(os.popen("id").read())\n',
    /^PermissionError: .* is not available to scripts/,
  ],
  [
    "rewriting the import guard's defaults",
    'g = getattr.__globals__\nf = g["_guarded_import"]\nf.__defaults__ = (0, None, (), 0, None, None, None)\nemit_result(1)\n',
    /^PermissionError: __defaults__ is not available to scripts/,
  ],
  [
    'real builtins swapped into the script globals, then a fresh function',
    'b = len.__self__.__dict__\ndef grab():\n    return grab.__globals__\nsg = grab()\nsg["__builtins__"] = b\ndef run():\n    return random.seed.__func__.__globals__["_os"].popen("id").read()\nemit_result(run())\n',
    /^PermissionError: .* is not available to scripts/,
  ],
  [
    "the script builtins' __import__ for a module of its choosing",
    'emit_result(str(__builtins__["__import__"]("os")))\n',
    /^ImportError: import os is not available to scripts/,
  ],
  [
    "the real __import__ held in the import guard's defaults",
    'imp = getattr.__globals__["_guarded_import"].__defaults__[-1]\nemit_result(str(imp("ctypes")))\n',
    /^PermissionError: __defaults__ is not available to scripts/,
  ],
  [
    'a stdlib callback calling os.system (map)',
    'os = random.seed.__func__.__globals__["_os"]\nemit_result(list(map(os.system, ["id"])))\n',
    /^PermissionError: os.system is not available to scripts/,
  ],
  [
    'a stdlib callback calling os.system (functools.reduce)',
    'os = random.seed.__func__.__globals__["_os"]\nemit_result(functools.reduce(lambda a, b: os.system(b), ["x", "id"]))\n',
    /^PermissionError: os.system is not available to scripts/,
  ],
  [
    'a file read through a stdlib function (tokenize.open)',
    'lc = getattr.__globals__["sys"].modules["linecache"]\nemit_result(lc.tokenize.open("/etc/passwd").read())\n',
    /^PermissionError: open is not available to scripts/,
  ],
];

const { docker, bubblewrap } = ISOLATION_LEVELS;
// The two levels run at the same time, each on its own backend and pool; a level's cases one after the other.
describe.each([docker, bubblewrap])(
  'Python red team, host validation off: %s',
  { concurrent: true },
  (name, level, make) => {
    let backend: SandboxBackend;
    let factory: TestFactory;
    beforeAll(async () => {
      factory = await make();
      backend = testBackend(factory, {
        toolsSource,
        pool: { maxSize: 1, maxJobsPerWorker: 10_000, queueTimeoutMs: 60_000, standby: 0 },
      });
    }, 300_000);
    afterAll(async () => {
      await backend?.dispose();
      await factory?.dispose();
    });
    describe('one case after another', { concurrent: false }, () => {
      const run = (code: string): Promise<ExecutionResult> =>
        runPython(backend, code, { sandbox: 'redteam', tools: TOOLS, timeoutMs: 10_000 });
      const why = (r: ExecutionResult) => `${r.error?.type ?? ''}: ${r.error?.message ?? ''}`;

      it('the wall lets honest code through: the unchecked path runs a plain script', async () => {
        const r = await run(uncheckedScript('r = get_orders()\nemit_result(r.data[0]["total"])\n'));
        expect(r).toMatchObject({ success: true, data: 10.5, isolation: level });
      }, 60_000);

      it.each(Object.keys(WORST))(
        '%s: refused by the worker re-check, and stopped at run time',
        async (file) => {
          const attack = attacks.find((a) => a.name === file);
          expect(attack, `${file} is in the corpus`).toBeDefined();
          const direct = await run(attack!.code);
          expect(direct.exitReason, why(direct)).toBe('rejected');
          expect(direct.error?.type).toBe('ValidationError');
          const r = await run(uncheckedScript(attack!.code));
          expect(r.success, `${file} ran to its end: ${JSON.stringify(r.data)}`).toBe(false);
          expect(why(r)).toMatch(WORST[file]!);
        },
        60_000,
      );

      it.each(POPEN)(
        'past both checks, os.popen("id") through %s is refused while the script is on the stack',
        async (_what, code) => {
          const r = await run(uncheckedScript(code));
          expect(r.success, `ran: ${JSON.stringify(r.data)}`).toBe(false);
          expect(why(r)).toMatch(/^PermissionError: .* is not available to scripts/);
          expect(JSON.stringify(r)).not.toMatch(/uid=\d+/);
        },
        60_000,
      );

      it.each(WALL)(
        'past both checks, an attack on the wall itself (%s) is refused',
        async (_what, code, refusal) => {
          const r = await run(uncheckedScript(code));
          expect(r.success, `ran: ${JSON.stringify(r.data)}`).toBe(false);
          expect(why(r)).toMatch(refusal);
          expect(JSON.stringify(r)).not.toMatch(/uid=\d+/);
        },
        60_000,
      );

      it("an exception of the worker's own ValidationError class raised at run time is an error, not a refusal by validation", async () => {
        const r = await run(
          uncheckedScript(
            'get_orders()\nraise getattr.__globals__["ValidationError"]("chosen by the script")\n',
          ),
        );
        expect(r.exitReason).toBe('error');
        expect(r.error).toMatchObject({ type: 'ValidationError', message: 'chosen by the script' });
        expect(r.toolCalls.map((t) => t.name)).toEqual(['get_orders', 'unchecked']);
        const refused = await run('import os\nemit_result(1)\n');
        expect(refused.exitReason).toBe('rejected');
      }, 60_000);

      it.each([
        ['a raise statement', 'get_orders()\nraise len.__self__.MemoryError\n'],
        ['a raised instance', 'get_orders()\nraise len.__self__.MemoryError("chosen by the script")\n'],
        [
          'a generator thrown into',
          'def g():\n    yield 1\nx = g()\nnext(x)\nx.throw(len.__self__.MemoryError())\n',
        ],
        ['a fresh generator thrown into', 'def g():\n    yield 1\ng().throw(len.__self__.MemoryError)\n'],
        ['a subclass', 'M = len.__self__.type("M", (len.__self__.MemoryError,), {})\nraise M()\n'],
      ])(
        'past both checks, a MemoryError the script raises itself (%s) is an error, not out of memory',
        async (_what, code) => {
          const r = await run(uncheckedScript(code));
          expect(r.exitReason, why(r)).toBe('error');
          expect(r.error?.type).toBe('MemoryError');
          // The worker was not replaced for it: the next job runs on it.
          expect((await run('emit_result(1)\n')).data).toBe(1);
        },
        60_000,
      );

      it("the interpreter's own MemoryError (an allocation that fails) is still out of memory, also past both checks", async () => {
        const r = await run(uncheckedScript('x = b"a" * (10**15)\nemit_result(len(x))\n'));
        expect(r.exitReason, why(r)).toBe('oom');
        const checked = await run('x = [0] * (2**60)\nemit_result(len(x))\n');
        expect(checked.exitReason, why(checked)).toBe('oom');
      }, 60_000);

      it('tool code stands between: a tool the script calls may do what its author wrote (the wall is for script code)', async () => {
        const r = await run('r = stamp()\nemit_result(r.data)\n');
        expect(r, why(r)).toMatchObject({ success: true, data: { uid: expect.stringMatching(/^uid=/) } });
      }, 60_000);

      it("a class patched past every check still cannot change a tool's record (built from the boundary)", async () => {
        // type.__setattr__ (the real type: the metaclass's own type) goes round the sealed metaclass: only the trace's own reading of the slots keeps
        // the record true. The script's own answer is its own business.
        const forged =
          'B = len.__self__\nT = B.type(B.type(ToolResponse))\nT.__setattr__(ToolResponse, "to_dict", lambda self: {"success": True, "data": "forged"})\nr = get_orders()\nemit_result(r.to_dict())\n';
        const r = await run(uncheckedScript(forged));
        expect(r.success, why(r)).toBe(true);
        const trace = r.toolCalls.find((t) => t.name === 'get_orders');
        expect(trace?.result).toEqual({ success: true, data: ORDERS });
      }, 60_000);

      it.each([
        ['os.system', 'os = random.seed.__func__.__globals__["_os"]\nos.system("true")\nemit_result(1)\n'],
        ['open', 'b = len.__self__\nemit_result(b.open("/etc/hostname").read())\n'],
        ['compile', 'b = len.__self__\nb.exec("x = 1")\nemit_result(1)\n'],
        ['import ctypes', 'b = len.__self__\nemit_result(str(b.__import__("ctypes")))\n'],
        ['import os', 'emit_result(len.__self__.__import__("os").getcwd())\n'],
      ])(
        'past both checks, an audited operation (%s) is still refused to script code',
        async (what, code) => {
          const r = await run(uncheckedScript(code));
          expect(r.success).toBe(false);
          expect(why(r)).toMatch(new RegExp(`^PermissionError: ${what} is not available to scripts`));
        },
        60_000,
      );

      it('type() of a class is refused: the real type (a metaclass) would make classes whose dunders read any attribute', async () => {
        // Past both static checks: type(type(1)) is the real type; a metaclass whose __instancecheck__ says yes
        // and a class whose __match_args__ names a dunder make a match pattern read emit_result.__self__ (the
        // job's Child), whose send forges a tool record that never crossed the boundary.
        const attack = [
          'k = type(1)',
          'T = type(k)',
          'u = "_" * 2',
          'M = T("M", (T,), {u + "instancecheck" + u: lambda cls, obj: True})',
          'D = M("D", (), {u + "match_args" + u: (u + "self" + u,)})',
          'match emit_result:',
          '    case D(child):',
          '        child.send({"type": "trace", "name": "get_user", "args": {"user_id": "forged"}, "ms": 1, "location": "sandbox", "result": {"success": True}})',
          'emit_result(1)',
          '',
        ].join('\n');
        // The host refuses type() of a plain class (165-type-of-type.py), not of a variable holding one.
        expect(validatePython(attack, { tools: TOOLS }).valid).toBe(true);
        const r = await run(attack);
        expect(r.toolCalls.map((t) => t.name)).toEqual([]);
        expect(r.success).toBe(false);
        expect(why(r)).toMatch(/^TypeError: type\(\) of a class is not available/);
        for (const cls of ['ToolResponse', 'ValueError', 'int', 'type(1)']) {
          const r2 = await run(`k = type(${cls})\nemit_result(1)\n`);
          expect(why(r2), cls).toMatch(/^TypeError: type\(\) of a class is not available/);
        }
        const honest = await run('emit_result([type(1) is int, type("a") == str, type([]) is list])\n');
        expect(honest).toMatchObject({ success: true, data: [true, true, true] });
      }, 60_000);

      it('the tool record holds the arguments as they crossed, whatever happens to them later', async () => {
        const r = await run(
          'a = ["pending"]\nx = get_orders(status=a[0])\na.append("later")\nemit_result(len(a))\n',
        );
        expect(r.success, why(r)).toBe(true);
        expect(r.toolCalls[0]).toMatchObject({ name: 'get_orders', args: { status: 'pending' } });
      }, 60_000);

      it('whatever the subset offers works at run time: common functions of every allowed module, in the real sandbox', async () => {
        const code = readFileSync(join(repoRoot, 'test/fixtures/python-honest/every-module.py'), 'utf8');
        const host = validatePython(code, { tools: TOOLS });
        expect(host.violations.map((v) => `${v.rule}: ${v.message}`)).toEqual([]);
        const r = await run(code);
        expect(r.success, why(r)).toBe(true);
        const out = r.data as Record<string, unknown[]>;
        expect(out['datetime']?.slice(0, 2)).toEqual(['2024-03-05 Tuesday', '14:30 UTC']);
        expect(out['time']?.slice(0, 2)).toEqual(['1970', 2024]);
        expect(out['format']).toEqual(['x-007', '2024', '9']);
        expect(out['functools']?.slice(0, 2)).toEqual([24, 6765]);
        expect(out['statistics']?.[0]).toBe(3.5);
        expect(Object.keys(out).sort()).toEqual(
          [
            'collections',
            'datetime',
            'format',
            'functools',
            'itertools',
            'json',
            'json_error',
            'math',
            're',
            'random',
            'shuffled',
            'stat_error',
            'statistics',
            'time',
          ].sort(),
        );
      }, 60_000);

      it('honest scripts never meet the wall (the benign corpus raises no PermissionError)', async () => {
        for (const b of corpus('benign')) {
          const r = await run(b.code);
          expect(r.error?.type, `${b.name}: ${why(r)}`).not.toBe('PermissionError');
          expect(r.exitReason, `${b.name}: ${why(r)}`).not.toBe('rejected');
        }
      }, 300_000);

      if (name === 'docker')
        it('the whole corpus: refused by the host, by the worker re-check, stopped at run time', async () => {
          const counts = { tried: 0, host: 0, worker: 0, runtime: 0 };
          const escaped: string[] = [];
          const ran: string[] = [];
          for (const a of attacks) {
            counts.tried++;
            if (!validatePython(a.code, { tools: TOOLS }).valid) counts.host++;
            const direct = await run(a.code);
            if (direct.exitReason === 'rejected') counts.worker++;
            else if (!HOST_ONLY.has(a.rule))
              escaped.push(`${a.name} passed the worker re-check: ${why(direct)}`);
            const r = await run(uncheckedScript(a.code));
            if (!r.success) counts.runtime++;
            else ran.push(a.name);
          }
          console.log(
            `python red team (${level}): ${JSON.stringify(counts)}; ran to their end unchecked: ${ran.join(' ')}`,
          );
          expect(escaped).toEqual([]);
          expect(counts.host).toBe(counts.tried);
          expect(counts.tried).toBeGreaterThanOrEqual(160);
        }, 600_000);
    });
  },
);
