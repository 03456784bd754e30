/** The name and attribute lists of builtins.ts as the Python rules look them up. */
import {
  pythonAttributeRefusal,
  PYTHON_EMIT_NAMES,
  PYTHON_FORBIDDEN_NAMES,
  PYTHON_FRAMEWORK_NAMES,
  PYTHON_MODULE_ATTRIBUTES,
  PYTHON_PREIMPORTED_MODULES,
  PYTHON_SAFE_BUILTINS,
} from '../../builtins.ts';

/** The attribute table (builtins.ts): why an attribute is refused, or undefined. */
export const attributeRefusal = pythonAttributeRefusal;
/** Forbidden names and why (a Map: a plain object would also answer `constructor`, `toString`...). */
export const FORBIDDEN_NAMES: ReadonlyMap<string, string> = new Map(Object.entries(PYTHON_FORBIDDEN_NAMES));
export const FRAMEWORK: ReadonlySet<string> = new Set(PYTHON_FRAMEWORK_NAMES);
export const EMIT: ReadonlySet<string> = new Set(PYTHON_EMIT_NAMES);
export const SAFE_BUILTINS: ReadonlySet<string> = new Set(PYTHON_SAFE_BUILTINS);
export const MODULES: ReadonlySet<string> = new Set(PYTHON_PREIMPORTED_MODULES);
/** Names a call may use whatever the script defines (unknown-function never flags them). */
export const KNOWN_CALLABLE: ReadonlySet<string> = new Set([
  ...PYTHON_FRAMEWORK_NAMES,
  ...PYTHON_SAFE_BUILTINS,
  ...PYTHON_PREIMPORTED_MODULES,
  ...Object.keys(PYTHON_FORBIDDEN_NAMES),
]);
/** Each pre-imported module's allowed attributes, and the list as messages show it. */
export const MODULE_ATTRS: ReadonlyMap<string, { allowed: ReadonlySet<string>; shown: string }> = new Map(
  Object.entries(PYTHON_MODULE_ATTRIBUTES).map(([m, attrs]) => [
    m,
    { allowed: new Set(attrs), shown: attrs.join(', ') },
  ]),
);
/** An attribute the attribute rules refuse whatever the receiver: underscores, interpreter internals. */
export const isInternalAttribute = (attr: string): boolean => {
  const r = pythonAttributeRefusal(attr);
  return r === 'underscore' || r === 'internal';
};
export const USE_FSTRING =
  'build the text with an f-string (f"{name}: {total:.2f}") or call .format on a string literal ("{}: {:.2f}".format(name, total))';
