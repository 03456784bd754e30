/**
 * Secrets out of everything stored, exported, logged or shown. A `Redactor` holds every secret the
 * process knows (provider keys set at run time or read from the environment, sandbox credentials, MCP
 * header values) and replaces each occurrence with `[redacted]`. It is the second wall: the LLM clients
 * already redact their own key from error messages and answers; the run store, exports, logs and the CLI
 * pass everything through `knownSecrets` again, so a key echoed by an endpoint never reaches a disk or a
 * screen whatever path it took.
 */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not redacted: a secret of a few characters would rewrite ordinary words and
 * numbers everywhere, and is no secret anyway.
 */
export const MIN_SECRET_LENGTH = 8;

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** JSON text of a string without its quotes; with `ascii`, every non-ASCII character escaped as Python's
 * `json.dumps` writes it by default (`\u00e9`, surrogate pairs for the rest). */
const jsonBody = (s: string, ascii = false): string => {
  const body = JSON.stringify(s).slice(1, -1);
  return ascii
    ? body.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : body;
};

/** Python's `urllib.parse.quote(s, safe="")`: percent-encodes `!'()*` too, which `encodeURIComponent` keeps. */
const pythonQuote = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The body of Python's `repr()` of a string (what `KeyError(key)`, `f"{key!r}"` and `str([key])` print;
 * a JavaScript `util.inspect` writes the same for these characters): backslashes doubled, `\t \n \r`
 * and other control characters escaped, and, when `quote`, `'` as `\'` (Python quotes with `"` instead,
 * escaping nothing, when the string holds `'` but no `"`).
 */
const reprBody = (s: string, quote: boolean): string =>
  s.replace(/[\\\x00-\x1f\x7f']/g, (c) => {
    if (c === '\\') return '\\\\';
    if (c === "'") return quote ? "\\'" : c;
    if (c === '\t') return '\\t';
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });

/**
 * How many times a secret's JSON escaping is repeated: a tool that returns JSON text holding JSON text
 * (`json.dumps({"body": json.dumps({"token": key})})`) writes a key holding `"` or `\` escaped once per
 * level, and each level doubles its backslashes; three levels of text inside the record's own JSON.
 */
const JSON_LEVELS = 4;

/**
 * Every form of a secret the redactor looks for: the value itself, URL-encoded (JavaScript's and
 * Python's), as Python's `repr()` writes it, and each of those escaped as a JSON string body once per
 * level of nested JSON text (also with non-ASCII escaped as Python writes it). Forms equal to the value
 * (a plain key) are the value.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set([secret, encodeURIComponent(secret), pythonQuote(secret)]);
  for (const base of [secret, reprBody(secret, true), reprBody(secret, false)]) {
    forms.add(base);
    for (const ascii of [false, true]) {
      let f = base;
      for (let level = 0; level < JSON_LEVELS; level++) {
        f = jsonBody(f, ascii);
        forms.add(f);
      }
    }
  }
  return [...forms];
}

export class Redactor {
  private readonly secrets = new Set<string>();
  private pattern: RegExp | null | undefined;
  private longest = 0;

  /**
   * `mask` replaces each secret (`[redacted]` in records; the sandbox's own results say `***`);
   * values shorter than `minLength` are not secrets.
   */
  private readonly mask: string;
  private readonly minLength: number;
  constructor(mask: string = REDACTED, minLength: number = MIN_SECRET_LENGTH) {
    this.mask = mask;
    this.minLength = minLength;
  }

  /** Remembers a secret (and the forms it takes inside URLs and JSON text: `secretForms`). */
  add(secret: string | undefined | null): void {
    if (typeof secret !== 'string' || secret.length < this.minLength) return;
    for (const f of secretForms(secret)) {
      if (this.secrets.has(f)) continue;
      this.secrets.add(f);
      this.longest = Math.max(this.longest, f.length);
      this.pattern = undefined;
    }
  }

  /** How many secret forms are held. */
  get size(): number {
    return this.secrets.size;
  }

  private regex(): RegExp | null {
    if (this.pattern === undefined)
      this.pattern = this.secrets.size
        ? new RegExp(
            [...this.secrets]
              .sort((a, b) => b.length - a.length)
              .map(escapeRe)
              .join('|'),
            'g',
          )
        : null;
    return this.pattern;
  }

  /** The text with every known secret replaced. */
  text(s: string): string {
    const re = this.regex();
    if (!re || typeof s !== 'string') return s;
    re.lastIndex = 0;
    if (!re.test(s)) return s;
    // Every occurrence of every secret, overlapping ones too (two secrets that share characters, or one
    // inside another), merged into spans: a regex replace would end the first match and leave the rest of
    // an overlapping second secret in the clear.
    const spans: [number, number][] = [];
    for (const secret of this.secrets)
      for (let i = s.indexOf(secret); i >= 0; i = s.indexOf(secret, i + 1))
        spans.push([i, i + secret.length]);
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let at = 0;
    let end = -1;
    for (const [from, to] of spans) {
      if (from > end) {
        if (end >= 0) out += this.mask;
        out += s.slice(at, from);
      }
      end = Math.max(end, to);
      at = end;
    }
    if (end >= 0) out += this.mask;
    return out + s.slice(at);
  }

  /** True when the text holds a known secret. */
  holds(s: string): boolean {
    const re = this.regex();
    if (!re) return false;
    re.lastIndex = 0;
    return re.test(s);
  }

  /** A copy of a JSON-like value with every string (and object key) redacted; unchanged parts are shared. */
  value<T>(v: T): T {
    if (!this.regex()) return v;
    return this.walk(v, 0) as T;
  }

  private walk(v: unknown, depth: number): unknown {
    if (typeof v === 'string') return this.text(v);
    if (v === null || typeof v !== 'object' || depth > 200) return v;
    if (Array.isArray(v)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const r = this.walk(v[i], depth + 1);
        if (r !== v[i]) (out ??= [...v])[i] = r;
      }
      return out ?? v;
    }
    if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const rk = this.text(k);
      const rx = this.walk(x, depth + 1);
      if (rk !== k || rx !== x) changed = true;
      // Defined, not assigned: a "__proto__" key (JSON.parse makes it an own key) would otherwise set the
      // copy's prototype, dropping the key and lending its fields to the copy.
      Object.defineProperty(out, rk, { value: rx, enumerable: true, writable: true, configurable: true });
    }
    return changed ? out : v;
  }

  /**
   * A redactor for text that arrives in pieces (streamed tokens): a secret split across pieces is still
   * caught, because the last characters that could start a secret are held back until the next piece or
   * `end()`.
   */
  stream(emit: (piece: string) => void): { push(piece: string): void; end(): void } {
    let held = '';
    return {
      push: (piece: string) => {
        held = this.text(held + piece);
        const keep = Math.max(0, this.longest - 1);
        if (held.length > keep) {
          emit(held.slice(0, held.length - keep));
          held = held.slice(held.length - keep);
        }
      },
      end: () => {
        if (held) emit(this.text(held));
        held = '';
      },
    };
  }
}

/**
 * A URL as it may be shown: the credentials it carries (`https://user:token@host/...`, which node's
 * http(s) sends as basic auth) replaced with `[redacted]`, whatever their length. Text that is not a URL
 * is returned as it is.
 */
export function urlWithoutCredentials(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  if (!u.username && !u.password) return url;
  return `${u.protocol}//${REDACTED}@${u.host}${u.pathname}${u.search}${u.hash}`;
}

/** Every secret this process knows; the run store, exports, logs and front ends redact with it. */
export const knownSecrets = new Redactor();
