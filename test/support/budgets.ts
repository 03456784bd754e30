/**
 * Time budgets of unit tests that do much work: parsing the installed standard library or every split of
 * a corpus, validating on worker threads, starting the CLI as a process, loading a large library, paging
 * through a large store. Each takes a second or a few on a quiet machine, yet up to ten times that on a
 * 2-core machine that also runs other suites (measured: up to 30 s), where vitest's default 5 s fails them
 * for load alone. A budget only ends a test that hangs; how fast the work is belongs in bench/, never in
 * an assertion.
 */

/**
 * Every test's budget in the unit, renderer, components and integration-local projects (vitest.config.ts),
 * in place of vitest's 5 s: a test that spawns one process, parses a few dozen files or opens a
 * service takes well under a second on a quiet machine, and was measured at 5.5 to 11 s at load 20
 * (the CLI's `serve --help`, the AST walk over app/, a tool call without Docker), where 5 s failed
 * it for load alone. Like every budget here it only ends a test that hangs.
 */
export const TEST_MS = 60_000;

/** Parsing or validating a large body of Python (the standard library, a whole corpus, every split). */
export const HEAVY_PARSE_MS = 120_000;

/** Starting processes or worker threads (the CLI through its bin, validator threads), or loading a large library. */
export const STARTS_PROCESSES_MS = 60_000;

/**
 * How long `expect.poll` and `expect.element` wait for their outcome, in every project (vitest.config.ts):
 * vitest's default of 1 s is the time an outcome takes on a quiet machine, not on a loaded one. A poll
 * passes as soon as its outcome holds; this only ends one that never does.
 */
export const POLL_MS = 60_000;

/** Filling a run store with thousands of runs and paging through it in every order. */
export const LARGE_STORE_MS = 120_000;

/**
 * How long vitest waits for a component file's browser session (its iframe in Chromium loading vitest's
 * client and the file's modules, which Vite transforms on demand, and connecting back) in place of
 * vitest's 60 s (`browser.connectTimeout`). A small file (SkillsParts: 8 modules of ours, no Monaco,
 * every package pre-bundled) missed 60 s once at load ~20, when the run's last group (unit,
 * integration-serial and components) shared 2 cores with other suites. Only ends a session that hangs.
 */
export const BROWSER_CONNECT_MS = 240_000;
