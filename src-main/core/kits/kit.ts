/**
 * Kits: named subsets of a sandbox's tools, with aliases, and their grade (the element-wise maximum of
 * their tools' grades). Unlike the library this design comes from, the grade is enforced: a kit above
 * the workspace's maximum grade is refused.
 */
import type { SandboxTool } from '../tools/extract.ts';
import { formatGrade, gradeWithin, maxGrade } from '../tools/grade.ts';
import type { Grade } from '../tools/grade.ts';
import { scriptNameClash } from '../tools/script-names.ts';

/**
 * The three forms of a kit's `tools`:
 * - list: `["get_orders", "get_user"]` (names used as they are);
 * - mapping: `{ orders = "get_orders", user = "get_user" }` (alias -> tool);
 * - nested: `{ catalog = { product = "get_product" }, orders = "get_orders" }` (groups of aliases;
 *   groups organise the manual, aliases stay flat and must be unique).
 */
export type KitToolsSpec = string[] | { [alias: string]: string | KitToolsSpec };

export interface KitDefinition {
  name: string;
  sandbox: string;
  description?: string;
  tools: KitToolsSpec;
}

export interface KitTool {
  /** The name scripts call. */
  alias: string;
  /** The sandbox tool it stands for. */
  tool: SandboxTool;
  /** Group path for nested kits ("" at top level). */
  group: string;
}

export interface ResolvedKit {
  name: string;
  sandbox: string;
  description: string;
  tools: KitTool[];
  grade: Grade;
}

export class KitError extends Error {
  override name = 'KitError';
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

function flatten(
  spec: KitToolsSpec,
  group: string,
  out: { alias: string; target: string; group: string }[],
): void {
  if (Array.isArray(spec)) {
    for (const name of spec) {
      if (typeof name !== 'string')
        throw new KitError(`kit list entries must be tool names, got ${JSON.stringify(name)}`);
      out.push({ alias: name, target: name, group });
    }
    return;
  }
  for (const [alias, v] of Object.entries(spec)) {
    if (typeof v === 'string') out.push({ alias, target: v, group });
    else flatten(v, group ? `${group}.${alias}` : alias, out);
  }
}

/** Resolves a kit against its sandbox's tools and checks it against the workspace's maximum grade. */
export function resolveKit(def: KitDefinition, tools: readonly SandboxTool[], limit?: Grade): ResolvedKit {
  const entries: { alias: string; target: string; group: string }[] = [];
  flatten(def.tools, '', entries);
  if (entries.length === 0) throw new KitError(`kit ${def.name} lists no tools`);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const seen = new Set<string>();
  const resolved: KitTool[] = [];
  for (const e of entries) {
    if (!IDENT.test(e.alias))
      throw new KitError(`kit ${def.name}: alias ${JSON.stringify(e.alias)} is not a valid identifier`);
    if (seen.has(e.alias)) throw new KitError(`kit ${def.name}: alias ${e.alias} is used twice`);
    // An alias is defined in the script's namespace: one named `emit_result`, `len` or `json` replaced
    // the helper, builtin or module in every script of the kit (no script could emit its result), and
    // a keyword cannot be called at all. A tool's own name is tools.py's to answer for, not the kit's.
    const clash = e.alias !== e.target ? scriptNameClash(e.alias) : undefined;
    if (clash)
      throw new KitError(
        `kit ${def.name}: alias ${e.alias} is ${clash.what}` +
          (clash.kind === 'keyword'
            ? '; scripts could not call it'
            : `: it would replace it in every script of the kit; name the alias after what ${e.target} does`),
      );
    seen.add(e.alias);
    const tool = byName.get(e.target);
    if (!tool) {
      throw new KitError(
        `kit ${def.name}: no tool ${e.target} in sandbox ${def.sandbox}; available: ${[...byName.keys()].join(', ') || 'none'}`,
      );
    }
    resolved.push({ alias: e.alias, tool, group: e.group });
  }
  const grade = maxGrade(resolved.map((r) => r.tool.grade));
  if (limit && !gradeWithin(grade, limit)) {
    const over = resolved
      .filter((r) => !gradeWithin(r.tool.grade, limit))
      .map((r) => `${r.alias} ${formatGrade(r.tool.grade)}`);
    throw new KitError(
      `kit ${def.name} has grade ${formatGrade(grade)}, above the workspace maximum ${formatGrade(limit)}; ` +
        `tools over the limit: ${over.join(', ')}`,
    );
  }
  return { name: def.name, sandbox: def.sandbox, description: def.description ?? '', tools: resolved, grade };
}

/** The tools as the kit presents them: renamed to their aliases (for the manual and the validator). */
export function kitToolView(kit: ResolvedKit): SandboxTool[] {
  return kit.tools.map((k) => ({ ...k.tool, name: k.alias }));
}

/**
 * A kit covering every tool of a sandbox, used when no kit is chosen. With the workspace's maximum
 * grade, tools above it are left out: a script cannot call them, with a kit or without one.
 */
export function defaultKit(sandbox: string, tools: readonly SandboxTool[], limit?: Grade): ResolvedKit {
  const allowed = limit ? tools.filter((t) => gradeWithin(t.grade, limit)) : tools;
  const over = tools.length - allowed.length;
  return {
    name: `${sandbox} (all tools)`,
    sandbox,
    description: over
      ? `every tool of ${sandbox} within the workspace maximum grade ${formatGrade(limit as Grade)} (${over} above it left out)`
      : `every tool of ${sandbox}`,
    tools: allowed.map((tool) => ({ alias: tool.name, tool, group: '' })),
    grade: maxGrade(allowed.map((t) => t.grade)),
  };
}

/** Why a tool may not be called under the workspace's maximum grade, or undefined when it may. */
export function gradeRefusal(tool: SandboxTool, limit: Grade | undefined): string | undefined {
  if (!limit || gradeWithin(tool.grade, limit)) return undefined;
  return `tool ${tool.name} has grade ${formatGrade(tool.grade)}, above the workspace maximum ${formatGrade(limit)}`;
}
