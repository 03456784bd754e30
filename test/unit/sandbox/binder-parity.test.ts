/**
 * The worker binds a tool call's arguments with a binder of its own (tools.py `Binder`, made from the
 * function's code object at load: inspect's machinery costs a job's process ~140 page faults). It must
 * take every call exactly as `inspect.Signature.bind` / `bind_partial` do: the same arguments in the same
 * order, the same positional and keyword split when the tool is called, the same error text. This test
 * generates every shape of signature up to two parameters of each kind (defaults or not, `*args`,
 * `**kwargs`) and a range of calls against each, and compares the two in a host python3 (the worker's
 * tools module imported, the generated functions are the test's own).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';

const PY = '/usr/bin/python3';
const PACKAGE_DIR = join(repoRoot, 'sandbox-images/python');

function python(script: string): string {
  const r = spawnSync(PY, ['-I', '-B', '-c', script, PACKAGE_DIR], {
    encoding: 'utf8',
    cwd: '/tmp',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`${PY} failed (Debian: apt-get install python3): ${r.stderr}`);
  return r.stdout;
}

const PARITY = String.raw`
import functools, inspect, itertools, json, sys
sys.path.insert(0, sys.argv[1])
from toolsmith_worker.tools import Binder

def shapes():
    for npo, npk, va, nko, vk in itertools.product(range(3), range(3), (0, 1), range(3), (0, 1)):
        n = npo + npk
        for ndef in range(n + 1):
            for kodef in itertools.product((0, 1), repeat=nko):
                parts = []
                for i in range(n):
                    name = f"p{i}" if i < npo else f"a{i}"
                    parts.append(name + ("=0" if i >= n - ndef else ""))
                    if i == npo - 1:
                        parts.append("/")
                if va:
                    parts.append("*rest")
                elif nko:
                    parts.append("*")
                parts += [f"k{i}" + ("=0" if d else "") for i, d in enumerate(kodef)]
                if vk:
                    parts.append("**more")
                yield ", ".join(parts)

def calls(names):
    keys = [n for n in names] + ["zz"]
    for npos in range(5):
        for r in range(3):
            for ks in itertools.combinations(keys, r):
                yield tuple(range(100, 100 + npos)), {k: k.upper() for k in ks}

def outcome(fn, args, kwargs):
    try:
        return ["ok", list(fn(args, kwargs))]
    except TypeError as e:
        return ["error", str(e)]

# A plain function's binder never asks inspect (its first signature in a job's process is what this
# binder saves): with inspect's signature broken, every binder below still binds.
real_signature = inspect.signature
def _no_inspect(*a, **k):
    raise AssertionError("inspect.signature called for a plain function")

checked, bad = 0, []
for shape in shapes():
    ns = {}
    exec(f"def f({shape}): pass", ns)
    f = ns["f"]
    sig = inspect.signature(f)
    inspect.signature = _no_inspect
    try:
        b = Binder.of(f)
        b.params
    finally:
        inspect.signature = real_signature
    if b.names != tuple(sig.parameters) or b.varkw != any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        bad.append([shape, "parameters", list(b.names)])
    names = [p.name for p in sig.parameters.values()]
    for args, kwargs in calls(names):
        for partial in (False, True):
            try:
                ba = (sig.bind_partial if partial else sig.bind)(*args, **kwargs)
                want = ["ok", list(ba.arguments.items()), list(ba.args), ba.kwargs]
            except TypeError as e:
                want = ["error", str(e)]
            given = dict(kwargs)
            try:
                got_args = b.bind(args, kwargs, partial=partial)
                ca, ck = b.call_args(got_args)
                got = ["ok", list(got_args.items()), list(ca), ck]
            except TypeError as e:
                got = ["error", str(e)]
            if kwargs != given:
                bad.append([shape, "kwargs changed", repr(args), repr(given)])
            checked += 1
            if want != got:
                bad.append([shape, repr(args), repr(kwargs), partial, repr(want), repr(got)])

# Anything but a plain function is read by inspect: a wrapped function takes its wrapped one's
# parameters, a callable object its __call__'s, a partial what is left of it.
def inner(a, b=1, *, c):
    pass

@functools.wraps(inner)
def wrapper(*args, **kwargs):
    pass

class Callable:
    def __call__(self, x, y=2):
        pass

def signed(*args, **kwargs):
    pass
signed.__signature__ = inspect.signature(inner)

others = {
    "wrapped": Binder.of(wrapper).names,
    "object": Binder.of(Callable()).names,
    "partial": Binder.of(functools.partial(inner, 1)).names,
    "__signature__": Binder.of(signed).names,
    "lambda": Binder.of(lambda q, *r, s=1: None).names,
}
print(json.dumps({"checked": checked, "bad": bad[:20], "nbad": len(bad), "others": others}))
`;

describe("the worker's binder takes a call as inspect's Signature.bind does", () => {
  it('every signature shape up to two parameters of each kind, against a range of calls', () => {
    const r = JSON.parse(python(PARITY)) as {
      checked: number;
      bad: unknown[];
      nbad: number;
      others: Record<string, string[]>;
    };
    expect(r.bad).toEqual([]);
    expect(r.nbad).toBe(0);
    expect(r.checked).toBeGreaterThan(100_000);
    expect(r.others).toEqual({
      wrapped: ['a', 'b', 'c'],
      object: ['x', 'y'],
      partial: ['b', 'c'],
      __signature__: ['a', 'b', 'c'],
      lambda: ['q', 'r', 's'],
    });
  });
});
