/**
 * The slow path of the snapshot (sandboxes-cache.ts): the full answer computed by the service. Loaded
 * only when the snapshot misses, so the fast path imports nothing but node: modules.
 */
import type { ToolsmithService } from '../app/service.ts';
import { scriptCallShapes, scriptToolNames } from '../core/script/context.ts';
import { writeSnapshot } from './sandboxes-cache.ts';
import type { SandboxesSnapshot } from './sandboxes-cache.ts';

/**
 * The full answer from the service, written as the workspace's snapshot when `key` (taken before the
 * service read the files) still names it. Workspaces with MCP sandboxes are never cached.
 */
export function snapshotFromService(
  svc: Pick<ToolsmithService, 'files' | 'config' | 'catalog' | 'execution' | 'workspace'>,
  key: string | undefined,
  dir: string | undefined,
): Omit<SandboxesSnapshot, 'version' | 'key'> {
  const egress: Record<string, string[]> = {};
  for (const [name, sb] of Object.entries(svc.workspace.config().sandboxes))
    if (sb.egress) egress[name] = sb.egress.allow;
  const scriptTools: SandboxesSnapshot['validate']['scriptTools'] = {};
  const scriptShapes: SandboxesSnapshot['validate']['scriptShapes'] = {};
  for (const name of svc.workspace.sandboxNames()) {
    const perLanguage: SandboxesSnapshot['validate']['scriptTools'][string] = {};
    const shapes: SandboxesSnapshot['validate']['scriptShapes'][string] = {};
    for (const language of ['python', 'js', 'ts'] as const) {
      try {
        const ctx = svc.execution.scriptContext(name, undefined, language);
        perLanguage[language] = scriptToolNames(ctx);
        shapes[language] = scriptCallShapes(ctx);
      } catch {
        // A sandbox whose tools cannot be read: validate takes the full path and says why.
      }
    }
    scriptTools[name] = perLanguage;
    scriptShapes[name] = shapes;
  }
  const answer = {
    workspace: svc.workspace.root(),
    sandboxes: svc.catalog.sandboxes(),
    egress,
    validate: {
      defaultSandbox: svc.workspace.defaultSandbox(),
      scriptTools,
      scriptShapes,
    },
  };
  const usesMcp = Object.values(svc.workspace.config().sandboxes).some(
    (sb) => Object.keys(sb.mcp).length > 0,
  );
  if (key && !usesMcp && svc.workspace.root() === dir) writeSnapshot({ version: 3, key, ...answer });
  return answer;
}
