/** A (w, d) grade: world coupling and effects ceiling, each 0..2. Unknown means worst: (2, 2). */
export interface Grade {
  w: number;
  d: number;
}

export const WORST_GRADE: Grade = { w: 2, d: 2 };

/** Element-wise maximum, the grade of a set of tools. The empty set is pure: (0, 0). */
export function maxGrade(grades: Iterable<Grade>): Grade {
  let w = 0;
  let d = 0;
  for (const g of grades) {
    w = Math.max(w, g.w);
    d = Math.max(d, g.d);
  }
  return { w, d };
}

/** True when `g` is within `limit` on both axes. */
export function gradeWithin(g: Grade, limit: Grade): boolean {
  return g.w <= limit.w && g.d <= limit.d;
}

export const formatGrade = (g: Grade): string => `(w=${g.w}, d=${g.d})`;

export function isGrade(v: unknown): v is Grade {
  if (typeof v !== 'object' || v === null) return false;
  const { w, d } = v as Record<string, unknown>;
  const ok = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 2;
  return ok(w) && ok(d);
}
