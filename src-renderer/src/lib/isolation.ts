/**
 * The isolation the service reports (`system.status`): the default level, then each sandbox that has a
 * level of its own, as `docker; gvisor: ecommerce; process: support`. Parsed here so a view shows one
 * badge per level and judges the default level alone (a sandbox on gVisor does not make the default
 * weaker than Docker).
 */
import type { IsolationLevel } from '../../../src-main/core/sandbox/execution.ts';

const LEVELS: readonly string[] = ['docker', 'gvisor', 'bubblewrap', 'process', 'none'];

export interface IsolationStatus {
  /** The level of every sandbox without one of its own. */
  level: IsolationLevel;
  /** The sandboxes with a level of their own. */
  sandboxes: { sandbox: string; level: IsolationLevel }[];
  /** Parts that name no known level, kept as they came (shown as text, never dropped). */
  unknown: string[];
}

const asLevel = (s: string): IsolationLevel | undefined =>
  LEVELS.includes(s) ? (s as IsolationLevel) : undefined;

export function parseIsolation(text: string): IsolationStatus {
  const [head = '', ...rest] = text.split(';').map((p) => p.trim());
  const out: IsolationStatus = { level: asLevel(head) ?? 'none', sandboxes: [], unknown: [] };
  if (!asLevel(head)) out.unknown.push(head);
  for (const part of rest) {
    const m = /^(\w+):\s*(.+)$/.exec(part);
    const level = m ? asLevel(m[1]!) : undefined;
    if (m && level) out.sandboxes.push({ sandbox: m[2]!, level });
    else if (part) out.unknown.push(part);
  }
  return out;
}

/** Below a Docker container: the process fallbacks (gVisor is a container with a kernel of its own). */
export const weakerThanDocker = (level: IsolationLevel): boolean =>
  level === 'bubblewrap' || level === 'process' || level === 'none';
