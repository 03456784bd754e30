/**
 * The runtime registry of the multi-runtime `execute_code` design: one entry per runtime, never a shell,
 * and the runtime is never guessed from the code. bun and deno are known but off by default; their
 * binaries come from the npm registry (`@oven/bun-linux-x64`, `@deno/linux-x64-glibc`, exact versions
 * pinned in infra/sandbox/images.ts) when their image is built. They run the Node worker unchanged
 * (docs/protocol.md, "bun and deno").
 */
export type RuntimeId = 'python' | 'node' | 'bun' | 'deno';

export interface RuntimeSpec {
  id: RuntimeId;
  enabled: boolean;
  /** File extension of its scripts. */
  extension: string;
  /** The helpers every script of this runtime gets (documented in the prompt rules). */
  preamble: string;
  /** The worker command inside the image (an argv, never a shell line; bun/deno: their image's entrypoint). */
  command: string[];
  /** The image family (tag carries a content hash). */
  image: string;
}

export const RUNTIMES: readonly RuntimeSpec[] = [
  {
    id: 'python',
    enabled: true,
    extension: '.py',
    preamble:
      'emit_result, emit_intermediate, emit_log, credential(path), ToolResponse; json time math re datetime random statistics itertools functools collections',
    command: ['python3', '-I', '-S', '-u', '/opt/toolsmith/worker.py'],
    image: 'toolsmith/python',
  },
  {
    id: 'node',
    enabled: true,
    extension: '.js',
    preamble:
      'emitResult, emitIntermediate, emitLog, credential(path); tools are async; JSON Math Date Map Set',
    command: ['node', '--disallow-code-generation-from-strings', '/opt/toolsmith/worker.mjs'],
    image: 'toolsmith/node',
  },
  {
    id: 'bun',
    enabled: false,
    extension: '.ts',
    preamble:
      'emitResult, emitIntermediate, emitLog, credential(path); tools are async; JSON Math Date Map Set; TypeScript types are stripped',
    // bun (JavaScriptCore) honours this flag like node: Function/eval from strings throw in every realm.
    command: ['bun', '--disallow-code-generation-from-strings', '/opt/toolsmith/worker.mjs'],
    image: 'toolsmith/bun',
  },
  {
    id: 'deno',
    enabled: false,
    extension: '.ts',
    preamble:
      'emitResult, emitIntermediate, emitLog, credential(path); tools are async; JSON Math Date Map Set; TypeScript types are stripped',
    // Permissions: the credentials' variables (NODE_V8_COVERAGE is read by node:child_process), the
    // sandbox's flag and the tests' switches (TOOLSMITH_PRIVATE_TMP, TOOLSMITH_TEST_WALLS); running deno
    // itself (one process per job) and the JS jobs' launcher, whose path it may read (stat) and which it
    // probes and starts each job's process through (docs/sandboxes.md, "Between jobs"); its uid (a rooted
    // job's must differ: worker.mjs wallsRefused). No net, write, ffi, no other read or sys.
    command: [
      'deno',
      'run',
      '--no-prompt',
      '--no-config',
      '--no-lock',
      '--v8-flags=--disallow-code-generation-from-strings',
      '--allow-env=TOOLSMITH_CRED_*,NODE_V8_COVERAGE,TOOLSMITH_PRIVATE_TMP,TOOLSMITH_TEST_WALLS',
      '--allow-run=/usr/local/bin/deno,/opt/toolsmith/jobns-launch',
      '--allow-read=/opt/toolsmith/jobns-launch',
      '--allow-sys=uid',
      '/opt/toolsmith/worker.mjs',
    ],
    image: 'toolsmith/deno',
  },
];

/** The registry with the workspace's `[runtimes.<id>] enabled = ...` applied. */
export function runtimeRegistry(config: Record<string, { enabled: boolean }>): RuntimeSpec[] {
  return RUNTIMES.map((r) => ({ ...r, enabled: config[r.id]?.enabled ?? r.enabled }));
}

export type RuntimeLookup = { runtime: RuntimeSpec } | { error: string };

/**
 * Why a runtime cannot be used, and how to turn it on: `runtime 'deno' is not enabled; available: python,
 * node (turn it on with "enabled = true" under [runtimes.deno] in .toolsmith/config.toml)`.
 */
export const runtimeNotEnabled = (id: string, enabled: readonly string[]): string =>
  `runtime '${id}' is not enabled; available: ${enabled.join(', ') || 'none'} (turn it on with "enabled = true" under [runtimes.${id}] in .toolsmith/config.toml)`;

/** Resolves a runtime id: `{"error": runtimeNotEnabled(...)}` when off. */
export function resolveRuntime(id: string, registry: readonly RuntimeSpec[]): RuntimeLookup {
  const enabled = registry.filter((r) => r.enabled).map((r) => r.id);
  const r = registry.find((x) => x.id === id);
  if (!r) return { error: `unknown runtime '${id}'; available: ${enabled.join(', ')}` };
  if (!r.enabled) return { error: runtimeNotEnabled(id, enabled) };
  return { runtime: r };
}

/** A request's runtime: given explicitly, else python or node by the language (never from the code). */
export const runtimeOf = (req: { runtime?: RuntimeId | undefined; language: string }): RuntimeId =>
  req.runtime ?? (req.language === 'python' ? 'python' : 'node');
