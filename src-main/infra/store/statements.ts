/**
 * Typed prepared statements for the stores: each statement is prepared once per connection and typed by
 * its parameter tuple and its row type, so call sites neither re-prepare nor cast. Dynamic SQL (the run
 * list's WHERE and ORDER BY) goes through a small cache keyed by its text.
 */
import type { DatabaseSync, SQLInputValue, StatementResultingChanges, StatementSync } from 'node:sqlite';

/** A prepared statement taking the positional parameters `P` and reading rows of type `R`. */
export interface Stmt<P extends SQLInputValue[], R> {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  iterate(...params: P): IterableIterator<R>;
  run(...params: P): StatementResultingChanges;
}

/**
 * Prepares `sql` on `db`, typed. The types are what the SQL promises (column names and SQLite types as
 * node:sqlite returns them); they are not checked at run time.
 */
export function stmt<P extends SQLInputValue[] = [], R = never>(db: DatabaseSync, sql: string): Stmt<P, R> {
  return db.prepare(sql) as unknown as Stmt<P, R>;
}

/**
 * Statements for SQL built at run time, prepared once per distinct text and kept while used (least
 * recently used first out past `max`).
 */
export class StatementCache {
  private readonly byText = new Map<string, StatementSync>();

  private readonly db: DatabaseSync;
  private readonly max: number;

  constructor(db: DatabaseSync, max = 64) {
    this.db = db;
    this.max = max;
  }

  get<P extends SQLInputValue[], R>(sql: string): Stmt<P, R> {
    let s = this.byText.get(sql);
    if (s) this.byText.delete(sql);
    else {
      s = this.db.prepare(sql);
      if (this.byText.size >= this.max) {
        const oldest = this.byText.keys().next();
        if (!oldest.done) this.byText.delete(oldest.value);
      }
    }
    this.byText.set(sql, s);
    return s as unknown as Stmt<P, R>;
  }
}
