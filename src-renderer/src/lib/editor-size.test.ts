import { describe, expect, it } from 'vitest';
import { fitDiffHeight, fitEditorHeight, LINE_PX, selectedLines } from './editor-size.ts';

describe('fitEditorHeight', () => {
  it('a two-line script gets a small editor, not the old fixed 300 px', () => {
    const h = fitEditorHeight('r = get_user("u1")\nemit_result(r.data)');
    expect(h).toBeLessThan(120);
    expect(h).toBeGreaterThanOrEqual(96);
  });
  it('grows with the text, one line height per line', () => {
    const ten = fitEditorHeight('x\n'.repeat(9) + 'x');
    const eleven = fitEditorHeight('x\n'.repeat(10) + 'x');
    expect(eleven - ten).toBe(LINE_PX);
  });
  it('stops at the maximum: a 500-line script scrolls inside the editor', () => {
    expect(fitEditorHeight('x\n'.repeat(500), { max: 480 })).toBe(480);
  });
  it('an empty editor still has its minimum', () => {
    expect(fitEditorHeight('', { min: 80 })).toBe(80);
  });
});

describe('fitDiffHeight', () => {
  it('follows the longer side and never exceeds 60% of the viewport', () => {
    const long = 'x\n'.repeat(200);
    expect(fitDiffHeight('a', long, 700)).toBe(420);
    expect(fitDiffHeight('a\nb', 'a', 900)).toBeLessThan(120);
  });
});

describe('selectedLines', () => {
  const sel = (startLineNumber: number, startColumn: number, endLineNumber: number, endColumn: number) => ({
    startLineNumber,
    startColumn,
    endLineNumber,
    endColumn,
  });
  it('an empty selection (a click) covers no lines', () => {
    expect(selectedLines(sel(2, 5, 2, 5))).toBeUndefined();
  });
  it('a selection inside one line covers that line', () => {
    expect(selectedLines(sel(2, 1, 2, 4))).toEqual({ start: 2, end: 2 });
  });
  it('a drag to the first column of a later line does not take that line', () => {
    expect(selectedLines(sel(1, 1, 4, 1))).toEqual({ start: 1, end: 3 });
    expect(selectedLines(sel(1, 3, 3, 2))).toEqual({ start: 1, end: 3 });
  });
});
