/** Types of skill-check.mjs (the node worker's re-check of a job's skills), for the tests that ask it. */
export declare const FORBIDDEN_NAMES: string[];
export declare const FORBIDDEN_PROPERTIES: string[];
export declare const OBJECT_METHODS: string[];
export declare const SYMBOL_MEMBERS: string[];
export declare const HOOK_KEYS: string[];
export declare const EMIT_NAMES: string[];
/** The problems of the job's skills in its (plain JS) code: [] when every one is clean. */
export declare function checkSkills(
  code: string,
  skills: readonly string[],
  found?: { name: string; params: string[]; open: number; close: number }[],
): string[];
