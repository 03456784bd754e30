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
  const guard = guards.get(db);
  if (!guard) return db.prepare(sql) as unknown as Stmt<P, R>;
  return guarded<P, R>(guard, sql);
}

/**
 * A store connection that checks its file before statements run (infra/store/connection.ts,
 * StoreConnection): `check(write)` may open the store again, and `db` then is the new connection.
 */
export interface Guard {
  readonly db: DatabaseSync;
  readonly generation: number;
  check(force: boolean, statement?: boolean, write?: boolean): void;
  failed(e: unknown): unknown;
}

const guards = new WeakMap<DatabaseSync, Guard>();

/** Statements prepared on `db` from now on check the file through `guard` (see stmt). */
export function guardConnection(db: DatabaseSync, guard: Guard): void {
  guards.set(db, guard);
}

/**
 * A statement that checks the store's file before it runs (at most every few ms; nothing inside a
 * transaction, already checked at its BEGIN), prepared again on the new connection
 * when the store was opened again, and naming a damaged file in its errors.
 */
function guarded<P extends SQLInputValue[], R>(guard: Guard, sql: string): Stmt<P, R> {
  let generation = guard.generation;
  let s = guard.db.prepare(sql);
  const current = (write: boolean): StatementSync => {
    // (a write outside a transaction, BEGIN included, looks at the file every time: see
    // StoreConnection.lookBeforeWrite)
    if (!guard.db.isTransaction) guard.check(false, true, write);
    if (guard.generation !== generation) {
      generation = guard.generation;
      s = guard.db.prepare(sql);
    }
    return s;
  };
  const call = <T>(fn: (st: StatementSync) => T, write = false): T => {
    try {
      return fn(current(write));
    } catch (e) {
      throw guard.failed(e);
    }
  };
  return {
    get: (...p: P) => call((st) => st.get(...p)) as R | undefined,
    all: (...p: P) => call((st) => st.all(...p)) as R[],
    iterate: (...p: P) => call((st) => st.iterate(...p)) as IterableIterator<R>,
    run: (...p: P) => call((st) => st.run(...p), true),
  };
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
      s = stmt(this.db, sql) as unknown as StatementSync;
      if (this.byText.size >= this.max) {
        const oldest = this.byText.keys().next();
        if (!oldest.done) this.byText.delete(oldest.value);
      }
    }
    this.byText.set(sql, s);
    return s as unknown as Stmt<P, R>;
  }
}
