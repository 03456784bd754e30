/**
 * Splitting a long Python script into runs of whole top-level statements, so that each can be parsed and
 * checked on its own (`validatePythonPart`) and the results merged (`mergePythonParts`, `finishPython`).
 *
 * A split point is the start of a line that begins at column 0 with a letter, `_` or `@` (a statement
 * or a decorator), is not `else`/`elif`/`except`/`finally`, and is outside any bracket, string or
 * backslash continuation according to a light lexical scan. The scan only chooses where to cut: when it
 * is wrong (a cut inside a bracket, a multi-line string or a backslash continuation), the part before the
 * cut does not parse on its own (unclosed bracket, unterminated string, unexpected end of file) and the
 * caller validates the whole script in one piece.
 * So a wrong split costs time, never a different answer (test/unit/lang/python-split.test.ts checks this
 * on every column-0 line of the corpus and of standard-library files, not only on the scan's choices).
 */

export interface PythonChunk {
  /** The part's text: whole lines of the script. */
  code: string;
  /** The script line the part starts on (1-based). */
  firstLine: number;
}

export interface PythonCut {
  /** UTF-16 offset of the line start. */
  offset: number;
  /** 1-based line number. */
  line: number;
}

const LF = 10;
const CR = 13;
const BACKSLASH = 92;
const HASH = 35;
const SINGLE = 39;
const DOUBLE = 34;
/** ASCII characters that never change the scan's state (all but newlines, `\\`, `#`, quotes and brackets). */
const PLAIN = new Uint8Array(128).fill(1);
for (const c of '\n\r\\#\'"()[]{}') PLAIN[c.charCodeAt(0)] = 0;
const CONTINUATION_KEYWORDS = ['else', 'elif', 'except', 'finally'];

const isIdentifierChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c > 127;

/** A line starting at `at` may start a top-level statement: a letter, `_` or `@`, and not else/elif/except/finally. */
function startsStatement(code: string, at: number): boolean {
  const c = code.charCodeAt(at);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 64)) return false;
  if (c !== 101 /* e */ && c !== 102 /* f */) return true;
  for (const kw of CONTINUATION_KEYWORDS)
    if (code.startsWith(kw, at) && !isIdentifierChar(code.charCodeAt(at + kw.length))) return false;
  return true;
}

/** The split points of `code` (see above), in order. Lines are counted as pyright does (CRLF, CR, LF). */
export function pythonSplitCandidates(code: string): PythonCut[] {
  const out: PythonCut[] = [];
  const n = code.length;
  let line = 1;
  let depth = 0; // open brackets outside strings
  let quote = 0; // the open string's quote character, 0 outside strings
  let triple = false;
  let escaped = false; // the previous character was a backslash
  for (let i = 0; i < n; i++) {
    const ch = code.charCodeAt(i);
    // Most characters change nothing: one table lookup and on to the next.
    if (ch < 128 && PLAIN[ch] === 1 && !escaped) continue;
    if (ch === LF || ch === CR) {
      if (ch === CR && code.charCodeAt(i + 1) === LF) i++;
      line++;
      const continued = escaped;
      escaped = false;
      if (quote !== 0 && !triple && !continued) quote = 0; // an unterminated one-line string ends here
      if (quote === 0 && depth === 0 && !continued && startsStatement(code, i + 1))
        out.push({ offset: i + 1, line });
      continue;
    }
    if (escaped) {
      escaped = false;
      continue;
    }
    if (ch === BACKSLASH) {
      escaped = true;
      continue;
    }
    if (quote !== 0) {
      if (ch === quote) {
        if (!triple) quote = 0;
        else if (code.charCodeAt(i + 1) === quote && code.charCodeAt(i + 2) === quote) {
          quote = 0;
          i += 2;
        }
      }
      continue;
    }
    if (ch === HASH) {
      // A comment runs to the end of the line (a backslash in it continues nothing).
      while (i + 1 < n && code.charCodeAt(i + 1) !== LF && code.charCodeAt(i + 1) !== CR) i++;
    } else if (ch === SINGLE || ch === DOUBLE) {
      quote = ch;
      triple = code.charCodeAt(i + 1) === ch && code.charCodeAt(i + 2) === ch;
      if (triple) i += 2;
    } else if (ch === 40 || ch === 91 || ch === 123)
      depth++; // ( [ {
    else if ((ch === 41 || ch === 93 || ch === 125) && depth > 0) depth--; // ) ] }
  }
  return out;
}

/**
 * Splits `code` into at most `count` parts of about equal length at split points (see above). Returns
 * one part (the whole script) when there is no split point.
 */
export function splitPython(code: string, count: number): PythonChunk[] {
  if (count <= 1) return [{ code, firstLine: 1 }];
  const candidates = pythonSplitCandidates(code);
  const cuts: PythonCut[] = [];
  let from = 0;
  for (let k = 1; k < count; k++) {
    const target = (code.length * k) / count;
    let best: PythonCut | undefined;
    for (let i = from; i < candidates.length; i++) {
      const c = candidates[i] as PythonCut;
      if (best === undefined || Math.abs(c.offset - target) < Math.abs(best.offset - target)) {
        best = c;
        from = i + 1;
      } else if (c.offset > target) break;
    }
    if (best !== undefined && (cuts.length === 0 || best.offset > (cuts.at(-1)?.offset ?? 0)))
      cuts.push(best);
  }
  const parts: PythonChunk[] = [];
  let start = 0;
  let firstLine = 1;
  for (const c of cuts) {
    parts.push({ code: code.slice(start, c.offset), firstLine });
    start = c.offset;
    firstLine = c.line;
  }
  parts.push({ code: code.slice(start), firstLine });
  return parts;
}

/** Splits `code` into parts of about `maxChars` each (see `splitPython`). */
export function splitPythonBySize(code: string, maxChars: number): PythonChunk[] {
  return splitPython(code, Math.max(1, Math.round(code.length / maxChars)));
}
