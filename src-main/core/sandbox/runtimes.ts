/**
 * The runtime registry of the multi-runtime `execute_code` design: one entry per runtime, never a shell,
 * and the runtime is never guessed from the code. bun and deno are known but off by default; their
 * binaries come from the npm registry (`@oven/bun-linux-x64`, `@deno/linux-x64-glibc`) when enabled.
 */
export interface RuntimeSpec {
  id: 'python' | 'node' | 'bun' | 'deno';
  enabled: boolean;
  /** File extension of its scripts. */
  extension: string;
  /** The helpers every script of this runtime gets (documented in the prompt rules). */
  preamble: string;
  /** The worker command inside the image (an argv, never a shell line). */
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
    command: ['python3', '-I', '-u', '/opt/toolsmith/worker.py'],
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
    preamble: 'as node',
    command: ['bun', '/opt/toolsmith/worker.mjs'],
    image: 'toolsmith/bun',
  },
  {
    id: 'deno',
    enabled: false,
    extension: '.ts',
    preamble: 'as node',
    command: ['deno', 'run', '--no-prompt', '/opt/toolsmith/worker.mjs'],
    image: 'toolsmith/deno',
  },
];

/** The registry with the workspace's `[runtimes.<id>] enabled = ...` applied. */
export function runtimeRegistry(config: Record<string, { enabled: boolean }>): RuntimeSpec[] {
  return RUNTIMES.map((r) => ({ ...r, enabled: config[r.id]?.enabled ?? r.enabled }));
}

export type RuntimeLookup = { runtime: RuntimeSpec } | { error: string };

/** Resolves a runtime id: `{"error": "runtime 'deno' is not enabled; available: python, node"}` when off. */
export function resolveRuntime(id: string, registry: readonly RuntimeSpec[]): RuntimeLookup {
  const enabled = registry.filter((r) => r.enabled).map((r) => r.id);
  const r = registry.find((x) => x.id === id);
  if (!r) return { error: `unknown runtime '${id}'; available: ${enabled.join(', ')}` };
  if (!r.enabled) return { error: `runtime '${id}' is not enabled; available: ${enabled.join(', ')}` };
  if (r.id === 'bun' || r.id === 'deno')
    return {
      error: `runtime '${id}' is enabled but this build has no ${id} image yet; available: python, node`,
    };
  return { runtime: r };
}
