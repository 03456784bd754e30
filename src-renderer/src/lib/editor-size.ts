/**
 * Editors sized to their content within bounds: a two-line script gets a small editor (the traceback and
 * tabs below it stay in view), a long one grows up to `max` and scrolls inside. Monaco's line height at
 * font size 13 is 19 px; `padding` covers its top and bottom margins and a horizontal scrollbar.
 */
export const LINE_PX = 19;

export interface FitOptions {
  min?: number;
  max?: number;
  /** Lines added below the text (room to type). */
  spare?: number;
  padding?: number;
}

export function fitEditorHeight(text: string, opts: FitOptions = {}): number {
  const { min = 96, max = 480, spare = 1, padding = 24 } = opts;
  const lines = text === '' ? 1 : text.split('\n').length;
  return Math.max(min, Math.min(max, (lines + spare) * LINE_PX + padding));
}

/** A diff of two texts: as tall as the longer side, within bounds and never taller than the viewport allows. */
export function fitDiffHeight(
  original: string,
  modified: string,
  viewport: number,
  opts: FitOptions = {},
): number {
  const longer = original.split('\n').length >= modified.split('\n').length ? original : modified;
  const cap = Math.max(opts.min ?? 96, Math.floor(viewport * 0.6));
  return fitEditorHeight(longer, { ...opts, max: Math.min(opts.max ?? 480, cap) });
}

/**
 * The lines a selection covers: a selection that ends at the start of a line (a drag or Shift+Down to
 * the next line's first column) does not take that line.
 */
export function selectedLines(s: {
  startLineNumber: number;
  startColumn: number;
  endLineNumber: number;
  endColumn: number;
}): { start: number; end: number } | undefined {
  if (s.startLineNumber === s.endLineNumber && s.startColumn === s.endColumn) return undefined;
  const end =
    s.endColumn === 1 && s.endLineNumber > s.startLineNumber ? s.endLineNumber - 1 : s.endLineNumber;
  return { start: s.startLineNumber, end };
}
