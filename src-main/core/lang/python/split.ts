/**
 * Splitting a large Python script into runs of whole top-level statements, so that the parts can be
 * validated at the same time (one per thread) and merged by `finishPython`.
 *
 * A split point is the start of a line that begins at column 0 with a letter, `_` or `@` (a statement
 * or a decorator), is not `else`/`elif`/`except`/`finally`, and does not follow a line ending in a
 * backslash. Such a line is a top-level statement boundary unless it lies inside a bracket or a
 * multi-line string; in that case the part before it does not parse on its own (unclosed bracket,
 * unterminated string), and the caller validates the whole script in one piece instead. So a wrong split
 * costs time, never a different answer (test/unit/lang/python-split.test.ts checks this on every
 * candidate split of the corpus and of standard-library files).
 */

export interface PythonChunk {
  /** The part's text: whole lines of the script. */
  code: string;
  /** The script line the part starts on (1-based). */
  firstLine: number;
}

const NEWLINE = /\r\n|\r|\n/g;
const STARTS_STATEMENT = /[A-Za-z_@]/;
const CONTINUATION_KEYWORD = /^(?:else|elif|except|finally)\b/;

/** UTF-16 offsets where a line that may start a top-level statement begins, and its 1-based line number. */
export function pythonSplitCandidates(code: string): { offset: number; line: number }[] {
  const out: { offset: number; line: number }[] = [];
  let line = 1;
  for (const m of code.matchAll(NEWLINE)) {
    const nl = m.index;
    const start = nl + m[0].length;
    line++;
    const lineEndsInBackslash = nl > 0 && code.charCodeAt(nl - 1) === 92; // '\\'
    if (start >= code.length || lineEndsInBackslash) continue;
    if (!STARTS_STATEMENT.test(code[start] as string)) continue;
    if (CONTINUATION_KEYWORD.test(code.slice(start, start + 9))) continue;
    out.push({ offset: start, line });
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
  const cuts: { offset: number; line: number }[] = [];
  let from = 0;
  for (let k = 1; k < count; k++) {
    const target = (code.length * k) / count;
    let best: { offset: number; line: number } | undefined;
    for (let i = from; i < candidates.length; i++) {
      const c = candidates[i] as { offset: number; line: number };
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
