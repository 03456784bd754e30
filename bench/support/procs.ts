/**
 * A Python worker's processes seen from the host (bench:stages, and the tests of the fork server's loop):
 * the worker and its fork server, and what /proc says of each one's CPU time and page faults.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime (ms) and faults of a process, and of its reaped children. */
export function procStat(pid: number) {
  const t = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = t
    .slice(t.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { flt: f[7]!, cflt: f[8]!, cpu: (f[11]! + f[12]!) * 10, ccpu: (f[13]! + f[14]!) * 10 };
}

/** The worker and its fork server: python processes whose parent is not python, and its python child. */
export function workerPids(isolation: string, id: string): { worker: number; server: number } {
  const procs = new Map<number, { ppid: number; comm: string }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const t = readFileSync(`/proc/${d}/stat`, 'utf8');
      procs.set(Number(d), {
        comm: t.slice(t.indexOf('(') + 1, t.lastIndexOf(')')),
        ppid: Number(t.slice(t.lastIndexOf(')') + 2).split(' ')[1]),
      });
    } catch {
      /* gone */
    }
  }
  let candidates = [...procs].filter(([, p]) => p.comm.startsWith('python'));
  if (isolation === 'docker') {
    candidates = candidates.filter(([pid]) => {
      try {
        return readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(id);
      } catch {
        return false;
      }
    });
  } else {
    const under = (pid: number) => {
      for (let q: number | undefined = pid; q; q = procs.get(q)?.ppid) if (q === Number(id)) return true;
      return false;
    };
    candidates = candidates.filter(([pid]) => under(pid));
  }
  const worker = candidates.find(([, p]) => !procs.get(p.ppid)?.comm.startsWith('python'))?.[0];
  const server = candidates.find(([, p]) => p.ppid === worker)?.[0];
  if (!worker || !server) throw new Error(`no worker and fork server found for ${id}`);
  return { worker, server };
}
