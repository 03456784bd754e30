/**
 * What `toolsmith pool status` prints, for main's verb (commands/exec.ts) and for its answer before main
 * loads (pool-status-early.ts): one text, so that both print the same bytes.
 */
import type { SystemStatus } from '../contract/api.ts';
import type { InstallationContainer } from '../infra/sandbox/installation.ts';

/** `1/1 ready`, `0/1 ready (1 starting)` or `off`. */
function standbyText(p: { standby: number; standbyStarting: number; standbyTarget: number }): string {
  if (p.standbyTarget === 0) return 'off';
  return `${p.standby}/${p.standbyTarget} ready${p.standbyStarting ? ` (${p.standbyStarting} starting)` : ''}`;
}

/** The engine, the isolation level (and why), the images and this process's pools. */
export function poolStatusText(s: SystemStatus): string {
  let out = `docker: ${s.docker.available ? `engine ${s.docker.version}` : `not available (${s.docker.error}); ${s.docker.hint ?? ''}`}\nisolation: ${s.isolation}\n${s.isolationReason ? `  why: ${s.isolationReason}\n` : ''}`;
  for (const i of s.images)
    out += `image ${i.runtime}: ${i.tag} ${i.present ? 'present' : 'missing (built on first use, or: toolsmith image build)'}\n`;
  for (const p of s.pools)
    out += `pool ${p.sandbox}: ${p.size} workers (${p.idle} idle, ${p.busy} busy), ${p.queued} queued, standby ${standbyText(p)}, ${p.replaced} replaced\n${p.lastReplaced ? `  last replaced ${p.lastReplaced.at}: ${p.lastReplaced.reason}\n` : ''}`;
  if (!s.pools.length) out += 'no pool in this process\n';
  return out;
}

/** The pools of the whole installation: its containers by owner (the workbench, serve, mcp, other verbs). */
export function installationContainersText(all: InstallationContainer[]): string {
  const byOwner = new Map<string, InstallationContainer[]>();
  for (const c of all) {
    const key = `${c.ownerPid ?? '?'}|${c.sandbox || '-'}|${c.live ? 'live' : 'leftover'}`;
    byOwner.set(key, [...(byOwner.get(key) ?? []), c]);
  }
  let out = all.length
    ? `containers of this installation (every Toolsmith process): ${all.length}\n`
    : 'no container of this installation is running\n';
  for (const [key, cs] of byOwner) {
    const [pid, sandbox, live] = key.split('|');
    const states = [...new Set(cs.map((c) => c.state))].join(', ');
    out += `  pid ${pid} sandbox ${sandbox}: ${cs.length} container(s) (${states})${live === 'leftover' ? ' left by a stopped process: toolsmith pool prune' : ''}\n`;
  }
  return out;
}
