/**
 * Tool-call arguments checked against the called tool's signature, before anything runs: too many
 * positional arguments, an unknown or repeated keyword, a positional-only parameter passed by name, a
 * parameter given twice, a required one missing (`tool-arguments`), and a literal of the wrong type
 * (`tool-argument-type`). Language-neutral: each validator reads a call into `CallArgs` (Python
 * `rules/arguments.ts`, JS `rules/arguments.ts`) and only where the call is statically certain: a call
 * that unpacks (`*xs`, `**kw`, `...xs`) is left alone.
 */

/** A literal's type as the checker compares it with a parameter's (`ParamType` of core/tools/model). */
export type LiteralType = 'str' | 'int' | 'float' | 'bool' | 'none' | 'list' | 'dict';

/** One parameter of a callable as calls may pass it. */
export interface CallParam {
  name: string;
  /** `positional`: by position only; `keyword`: by name only; `either`: both. */
  kind: 'positional' | 'keyword' | 'either';
  required: boolean;
  /** The declared type (`str int float bool list dict any`), when checked against literals. */
  type?: string;
  /** The argument may be None/null (`Optional[X]`, `X | None`, a default of None). */
  nullable?: boolean;
}

/** What a call of one tool, skill or MCP tool may pass, and how messages show its signature. */
export interface CallShape {
  /** The signature as the manual shows it: `add_numbers(a: int, b: int)`. */
  text: string;
  params: CallParam[];
  /** Further positional arguments are taken (`*args`). */
  varArgs?: boolean;
  /** Further keyword arguments are taken (`**kwargs`; an MCP tool whose schema allows more properties). */
  varKwargs?: boolean;
  /** Words saying that positional arguments are not taken at all (Python calls of MCP tools). */
  keywordsOnly?: string;
  /** A JS/TS call passes one object of named arguments (`await get_user({user_id: "u1"})`). */
  objectArgument?: boolean;
}

/** A call's arguments, as far as the checker needs them. */
export interface CallArgs {
  /** The positional arguments, each with its literal type when it is a literal. */
  positional: (LiteralType | undefined)[];
  /** The keyword arguments in order, each with its literal type when it is a literal. */
  keywords: { name: string; type: LiteralType | undefined }[];
}

/** One problem with a call: which argument it is about (an index into `positional`/`keywords`), if one. */
export interface ArgumentProblem {
  rule: 'tool-arguments' | 'tool-argument-type';
  message: string;
  positional?: number;
  keyword?: number;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Whether a literal of type `lit` can be a parameter of type `param` (only clear mismatches are not). */
export function literalFits(lit: LiteralType, p: Pick<CallParam, 'type' | 'nullable'>): boolean {
  const type = p.type ?? 'any';
  if (type === 'any') return true;
  if (lit === 'none') return p.nullable === true;
  if (type === lit) return true;
  // Python's numeric tower: a bool is an int, an int is a float.
  if (type === 'float') return lit === 'int' || lit === 'bool';
  if (type === 'int') return lit === 'bool';
  return false;
}

const LITERAL_WORDS: Record<LiteralType, string> = {
  str: 'a string',
  int: 'an int',
  float: 'a float',
  bool: 'a bool',
  none: 'None',
  list: 'a list',
  dict: 'a dict',
};

/** A JS/TS literal's type in JS words: a number is a number (an int parameter given 2.5: "a fraction"). */
const JS_LITERAL_WORDS: Record<LiteralType, string> = {
  str: 'a string',
  int: 'a number',
  float: 'a number with a fraction',
  bool: 'a boolean',
  none: 'null',
  list: 'an array',
  dict: 'an object',
};

/** A parameter's declared type in JS words (`string`, `number`, `boolean`, `array`, `object`). */
const JS_PARAM_WORDS: Record<string, string> = {
  str: 'string',
  int: 'an integer number',
  float: 'number',
  bool: 'boolean',
  list: 'array',
  dict: 'object',
};

/**
 * "argument 'x' must be T, not a U": in the script's language's words (a JS/TS script read `must be str,
 * not an int` of `{user_id: 5}`, Python's names for JS values).
 */
function typeProblem(
  name: string,
  param: string,
  p: Pick<CallParam, 'type' | 'nullable'>,
  lit: LiteralType,
  language: 'python' | 'js',
): string {
  const js = language === 'js';
  const none = js ? 'null' : 'None';
  const type = p.type ?? 'any';
  const want = js ? (JS_PARAM_WORDS[type] ?? type) : type;
  const got = lit === 'none' ? none : (js ? JS_LITERAL_WORDS : LITERAL_WORDS)[lit];
  return `${name}() argument '${param}' must be ${want}${p.nullable ? ` or ${none}` : ''}, not ${got}`;
}

/**
 * The problems of calling `name` with `args` (empty when it binds). Every problem is reported, not only
 * the first as Python does; each message names the tool, the argument and the signature.
 */
export function checkArguments(
  name: string,
  shape: CallShape,
  args: CallArgs,
  language: 'python' | 'js' = 'python',
): ArgumentProblem[] {
  const out: ArgumentProblem[] = [];
  const sig = ` (${shape.text})`;
  const say = (message: string, at: Omit<ArgumentProblem, 'rule' | 'message'> = {}): void => {
    out.push({ rule: 'tool-arguments', message: `${message}${sig}`, ...at });
  };
  const byPosition = shape.params.filter((p) => p.kind !== 'keyword');
  const filled = new Set<string>();
  if (shape.keywordsOnly !== undefined && args.positional.length > 0)
    say(`${name}() ${shape.keywordsOnly}`, { positional: 0 });
  else {
    args.positional.forEach((lit, i) => {
      const p = byPosition[i];
      if (!p) return;
      filled.add(p.name);
      if (lit !== undefined && !literalFits(lit, p))
        out.push({
          rule: 'tool-argument-type',
          message: `${typeProblem(name, p.name, p, lit, language)}${sig}`,
          positional: i,
        });
    });
    if (args.positional.length > byPosition.length && !shape.varArgs)
      say(
        `${name}() takes ${plural(byPosition.length, 'positional argument')} but ${args.positional.length} ${args.positional.length === 1 ? 'was' : 'were'} given`,
        { positional: byPosition.length },
      );
  }
  const seen = new Set<string>();
  args.keywords.forEach(({ name: k, type: lit }, i) => {
    if (seen.has(k)) {
      say(`${name}() got the argument '${k}' twice`, { keyword: i });
      return;
    }
    seen.add(k);
    const p = shape.params.find((q) => q.name === k);
    if (!p || p.kind === 'positional') {
      if (shape.varKwargs) return;
      if (p)
        say(`${name}() argument '${k}' is positional-only: pass it by position, not as ${k}=`, {
          keyword: i,
        });
      else
        say(`${name}() got an unexpected ${language === 'python' ? 'keyword argument' : 'argument'} '${k}'`, {
          keyword: i,
        });
      return;
    }
    if (filled.has(k)) {
      say(`${name}() got multiple values for argument '${k}'`, { keyword: i });
      return;
    }
    filled.add(k);
    if (lit !== undefined && !literalFits(lit, p))
      out.push({
        rule: 'tool-argument-type',
        message: `${typeProblem(name, k, p, lit, language)}${sig}`,
        keyword: i,
      });
  });
  // Positional arguments a tool does not take at all are probably the missing ones: said once, above.
  if (shape.keywordsOnly !== undefined && args.positional.length > 0) return out;
  const missing = shape.params.filter((p) => p.required && !filled.has(p.name));
  // (a positional-only one named as a keyword is reported above, and also missing: it is)
  for (const p of missing) say(`${name}() missing required argument '${p.name}'`);
  return out;
}
