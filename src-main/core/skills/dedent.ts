/** Lines taken out of a script body with their common indentation removed (a proposed skill's body). */
export const dedent = (lines: string[]): string[] => {
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut));
};
