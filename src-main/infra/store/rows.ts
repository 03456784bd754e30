/**
 * Rows copied between two stores as they are (the tables beside the runs: suite runs, their results,
 * template counters), used by recovery (recover.ts) and by a live process whose store file was
 * replaced under it (run-events.ts, keepWritten).
 */
import type { DatabaseSync } from 'node:sqlite';

/** Writes `rows` into `table` of `db` (the columns both stores have; a row already there is kept). */
export function insertRows(db: DatabaseSync, table: string, rows: Record<string, unknown>[]): number {
  if (rows.length === 0) return 0;
  const have = new Set(
    (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name),
  );
  let n = 0;
  for (const row of rows) {
    const cols = Object.keys(row).filter((c) => have.has(c));
    const sql = `INSERT OR IGNORE INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
    try {
      const r = db.prepare(sql).run(...cols.map((c) => row[c] as string | number | null));
      n += Number(r.changes);
    } catch {
      // A row the damage left inconsistent (a column of the wrong kind): not carried.
    }
  }
  return n;
}
