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
