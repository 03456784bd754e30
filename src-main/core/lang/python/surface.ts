/**
 * The worker's copy of the language surface (sandbox-images/python/toolsmith_worker/surface.py), generated
 * from builtins.ts so that the host validator and the worker's re-check apply one table: the forbidden
 * names, the attribute table (prefixes, names, template methods), the safe builtins and each pre-imported
 * module's attributes. `node scripts/gen-python-surface.ts` writes it; python-worker-parity.test.ts fails
 * when the file differs from what this function returns.
 */
import {
  PYTHON_FORBIDDEN_ATTRIBUTE_PREFIXES,
  PYTHON_FORBIDDEN_ATTRIBUTES,
  PYTHON_FORBIDDEN_NAMES,
  PYTHON_MODULE_ATTRIBUTES,
  PYTHON_SAFE_BUILTINS,
  PYTHON_TEMPLATE_METHODS,
} from '../builtins.ts';
import { FORMAT_FIELD } from './rules/format.ts';
import { BIDI_CONTROLS } from '../bidi.ts';

/** Builtins the worker adds itself (guarded getattr/hasattr/type, its print) and the keywords. */
export const WORKER_OWN_BUILTINS: readonly string[] = [
  'getattr',
  'hasattr',
  'type',
  'print',
  'True',
  'False',
  'None',
];

/** A Python literal of strings (JSON's string escapes are Python's). */
const list = (xs: readonly string[], indent = '    '): string => {
  const lines: string[] = [];
  let line = '';
  for (const x of xs) {
    const item = `${JSON.stringify(x)}, `;
    if (line.length + item.length > 100) {
      lines.push(line.trimEnd());
      line = '';
    }
    line += item;
  }
  if (line) lines.push(line.trimEnd());
  return lines.map((l) => `${indent}${l}`).join('\n');
};

/** The text of surface.py. */
export function pythonSurfaceSource(): string {
  const safe = PYTHON_SAFE_BUILTINS.filter((b) => !WORKER_OWN_BUILTINS.includes(b));
  const modules = Object.entries(PYTHON_MODULE_ATTRIBUTES)
    .map(([m, attrs]) => `    ${JSON.stringify(m)}: [\n${list(attrs, '        ')}\n    ],`)
    .join('\n');
  return `"""The language surface scripts may use: generated from src-main/core/lang/builtins.ts by
scripts/gen-python-surface.ts. Do not edit: test/unit/lang/python-worker-parity.test.ts fails when this
file differs from what the generator writes."""

# Names scripts may not even reference (not only call).
FORBIDDEN_NAMES = frozenset([
${list(Object.keys(PYTHON_FORBIDDEN_NAMES))}
])
# The attribute table: refused whatever the receiver and whichever way the attribute is read.
FORBIDDEN_ATTRIBUTE_PREFIXES = (
${list(PYTHON_FORBIDDEN_ATTRIBUTE_PREFIXES)}
)
FORBIDDEN_ATTRS = frozenset([
${list(PYTHON_FORBIDDEN_ATTRIBUTES)}
])
TEMPLATE_METHODS = frozenset([
${list(PYTHON_TEMPLATE_METHODS)}
])
# The builtins scripts get (getattr, hasattr, type and print are added guarded by checks.py).
SAFE_BUILTIN_NAMES = [
${list(safe)}
]
# The only attributes scripts get from each pre-imported module.
MODULE_ATTRS = {
${modules}
}
# A str.format replacement field's name (group 1), skipping {{ and }}.
FORMAT_FIELD = r"${FORMAT_FIELD.source}"
# The bidi-control rule (core/lang/bidi.ts): the characters refused anywhere in a script, by code point.
BIDI_CONTROLS = {
${Object.entries(BIDI_CONTROLS)
  .map(([cp, name]) => `    0x${Number(cp).toString(16).padStart(4, '0')}: ${JSON.stringify(name)},`)
  .join('\n')}
}
`;
}
