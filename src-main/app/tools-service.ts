/**
 * A sandbox's tools for every front end: the view of its tools.py (tools, problems, the manual and the
 * OpenAI schemas), saving tools.py, and calling one tool directly (`tool call`, Try tool).
 */
import { extractTools } from '../core/tools/extract.ts';
import type { JsonValue } from '../core/tools/model.ts';
import { toolsPrompt } from '../core/tools/prompt.ts';
import { openAiFunctionSchema } from '../core/tools/schema.ts';
import type { ToolRegistry } from '../core/tools/registry.ts';
import type { Response, ToolsView } from '../contract/api.ts';
import { ToolsmithError } from './errors.ts';
import type { RegistryDeps, SandboxDeps, WorkspaceDeps } from './deps.ts';
import type { SandboxManager } from './sandbox.ts';
import type { SandboxTool } from '../core/tools/extract.ts';
import { infraResult } from '../core/sandbox/execution.ts';
import { errorMessage } from '../core/errors.ts';

/** What saving tools.py needs besides the files and registries: forgetting a sandbox's cached tools. */
export interface ToolsDeps extends WorkspaceDeps, RegistryDeps, SandboxDeps {
  invalidateRegistry(sandbox: string): void;
  /** A tool a person may call directly (refused above the workspace's maximum grade). */
  callableTool(sandbox: string, name: string): SandboxTool;
}

const view = (sandbox: string, r: ToolRegistry): ToolsView => ({
  sandbox,
  tools: r.tools,
  problems: r.problems,
  ...(r.mcpProblems.length ? { mcpProblems: [...r.mcpProblems] } : {}),
  prompt: r.prompt(),
  openai: r.tools.map(openAiFunctionSchema),
});

/** A sandbox's tools as the workbench shows them, with the source of its tools.py. */
export function listTools(svc: WorkspaceDeps & RegistryDeps, sandbox: string): Response<'tools.list'> {
  return { ...view(sandbox, svc.registry(sandbox)), source: svc.files.readTools(sandbox) };
}

/** The tools of a tools.py source that is not saved (the editor's live view). */
export function extractToolsView(source: string): Response<'tools.extract'> {
  const { tools, problems } = extractTools(source);
  return { tools, problems, prompt: toolsPrompt(tools), openai: tools.map(openAiFunctionSchema) };
}

/**
 * Writes a sandbox's tools.py, forgets its cached tools and reloads its workers (when a sandbox backend
 * runs); returns the tools as extracted from the new source.
 */
export async function saveTools(
  svc: Omit<ToolsDeps, 'callableTool'>,
  sandbox: string,
  source: string,
): Promise<Response<'tools.save'>> {
  if (!svc.files.sandboxNames().includes(sandbox))
    throw new ToolsmithError('not_found', `no sandbox ${sandbox}`);
  svc.files.writeTools(sandbox, source);
  svc.invalidateRegistry(sandbox);
  const r = svc.registry(sandbox);
  await (await svc.sandbox().catch(() => undefined))?.reload(sandbox);
  return view(sandbox, r);
}

/**
 * Calls one tool in its sandbox; refused above the workspace's maximum grade. Without a sandbox backend
 * the answer is an `infra` result that says why, never an exception.
 */
export async function callTool(
  svc: Pick<ToolsDeps, 'callableTool' | 'sandbox'>,
  sandbox: string,
  tool: string,
  args: Record<string, JsonValue>,
): Promise<Response<'tools.call'>> {
  svc.callableTool(sandbox, tool);
  let manager;
  try {
    manager = await svc.sandbox();
  } catch (e) {
    return { result: infraResult(errorMessage(e), 'python') };
  }
  return manager.callTool(sandbox, tool, args);
}

/** What the tools feature needs besides ToolsDeps: the running backend (never started for this) and forgetting a removed sandbox. */
export interface ToolsFeatureDeps extends ToolsDeps {
  /** The sandbox manager when one was started (or is starting), without starting one. */
  startedSandbox(): Promise<SandboxManager | undefined>;
  /** Forgets everything cached about a sandbox that is gone. */
  forget(sandbox: string): void;
}

/**
 * A sandbox's files changed on disk (or all sandboxes' when none is named): its tools are re-extracted
 * and its workers reloaded. A tools.py that does not parse is reported (file and line) and the
 * workers keep the tools they have until it parses again.
 */
export async function toolsChanged(
  svc: ToolsFeatureDeps,
  sandbox?: string,
): Promise<{ sandbox: string; error?: string }[]> {
  const names = sandbox ? [sandbox] : svc.files.sandboxNames();
  const out: { sandbox: string; error?: string }[] = [];
  const manager = await svc.startedSandbox();
  for (const name of names) {
    svc.invalidateRegistry(name);
    if (!svc.files.sandboxNames().includes(name)) {
      svc.forget(name);
      out.push({ sandbox: name });
      continue;
    }
    let problems;
    try {
      problems = svc.registry(name).problems;
    } catch (e) {
      out.push({ sandbox: name, error: errorMessage(e) });
      continue;
    }
    const syntax = problems.filter((p) => p.rule === 'syntax');
    if (syntax.length > 0) {
      const file = svc.files.toolsFile(name);
      out.push({
        sandbox: name,
        error: `${syntax
          .slice(0, 3)
          .map((p) => `${file}:${p.line}:${p.column}: ${p.message}`)
          .join('; ')} (the sandbox's workers keep the tools they loaded until tools.py parses again)`,
      });
      continue;
    }
    await manager?.reload(name);
    out.push({ sandbox: name });
  }
  return out;
}

/** The tools feature every front end calls (built once by the composition root). */
export function toolsFeature(deps: ToolsFeatureDeps) {
  return {
    /** A sandbox's tools, problems, manual and OpenAI schemas, with its tools.py source. */
    list: (sandbox: string) => listTools(deps, sandbox),
    /** The tools of an unsaved tools.py source. */
    extract: (source: string) => extractToolsView(source),
    /** Writes a sandbox's tools.py and reloads its tools (and workers). */
    save: (sandbox: string, source: string) => saveTools(deps, sandbox, source),
    /** Calls one tool directly (refused above the maximum grade; an infra result without a backend). */
    call: (sandbox: string, tool: string, args: Record<string, JsonValue>) =>
      callTool(deps, sandbox, tool, args),
    /** Re-extracts the tools of changed sandboxes and reloads their workers (see `toolsChanged`). */
    changed: (sandbox?: string) => toolsChanged(deps, sandbox),
  };
}
export type ToolsFeature = ReturnType<typeof toolsFeature>;
