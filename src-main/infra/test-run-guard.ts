/**
 * A Toolsmith process of a test run never uses the Toolsmith files of the person running the tests.
 * The run's global setup (test/support/isolated-home.ts) sets `TOOLSMITH_TEST_ROOT` to the run's folder,
 * which every process the run starts inherits, and writes there the person's Toolsmith places as it
 * found them (`person-places.json`: their data and cache folders). Every place Toolsmith resolves for
 * its data or caches goes through `ownPlace`: in a process of the run, a place inside the person's is
 * refused at once, in the process that was about to use it, with an error naming the path, and the
 * path is recorded under `<root>/leaks/` (a cache's best-effort write swallows the error: the record is
 * what the run's teardown reports, failing the run). Outside a test run (no `TOOLSMITH_TEST_ROOT`) this
 * is one environment read. A write by a Toolsmith outside the run (the person's own app, `serve`, a CLI
 * command) is theirs: it is not checked, and the run is not blamed for it.
 */
import { join, resolve, sep } from 'node:path';

// Builtins by process.getBuiltinModule, not ES imports (the CLI's cached verbs load this: see verb-cache.ts).
const { appendFileSync, mkdirSync, readFileSync } = process.getBuiltinModule('node:fs');

/** The file in the run's folder listing the person's Toolsmith places (written by the run's setup). */
export const PERSON_PLACES_FILE = 'person-places.json';
/** The folder in the run's folder where refused places are recorded, one file per process. */
export const LEAKS_DIR = 'leaks';

export interface PersonPlaces {
  /** The person's Toolsmith data and cache folders. */
  roots: string[];
  /** Folders inside them the run shares on purpose (the sandbox image build cache). */
  skip: string[];
}

let read: { root: string; places: PersonPlaces | undefined } | undefined;

function personPlaces(root: string): PersonPlaces | undefined {
  if (read?.root !== root) {
    let places: PersonPlaces | undefined;
    try {
      places = JSON.parse(readFileSync(join(root, PERSON_PLACES_FILE), 'utf8')) as PersonPlaces;
    } catch {
      places = undefined; // (a run folder made by hand, without the setup: nothing to protect)
    }
    read = { root, places };
  }
  return read.places;
}

/** `path`, unless this process belongs to a test run and `path` is one of the person's Toolsmith places. */
export function ownPlace(path: string): string {
  const root = process.env['TOOLSMITH_TEST_ROOT'];
  if (!root) return path;
  const p = resolve(path);
  const inside = (dir: string) => p === dir || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
  if (inside(resolve(root))) return path;
  const places = personPlaces(root);
  if (!places || !places.roots.some(inside) || places.skip.some(inside)) return path;
  try {
    mkdirSync(join(root, LEAKS_DIR), { recursive: true });
    appendFileSync(
      join(root, LEAKS_DIR, `${process.pid}.txt`),
      `${p}\t(process ${process.pid}: ${process.argv.slice(1).join(' ')})\n`,
    );
  } catch {
    /* the error below still says it */
  }
  throw new Error(
    `this process belongs to the test run in ${root} (TOOLSMITH_TEST_ROOT) and was about to use ${p}, a Toolsmith file of the person running the tests: the variable that placed it must point into the run's folder (test/support/isolated-home.ts)`,
  );
}
