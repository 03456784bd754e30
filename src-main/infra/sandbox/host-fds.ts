import { readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

/** A spawn stdio entry of the kinds used here. */
export type Stdio = 'pipe' | 'ignore' | number;

/**
 * The descriptors from `from` up that a child spawned by this process would inherit: those without
 * close-on-exec, which Node never opens itself but this process may have been handed by whatever started
 * it (a shell's, a terminal multiplexer's, a make jobserver's pipe). Neither Node nor bubblewrap closes
 * them, so a process-level worker, and every job it forked, held them: a sandbox's code could write to a
 * file or pipe of the host (docs/security.md, "Every job alone"). Empty where /proc cannot tell.
 */
export function inheritableFds(from: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < from) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
    } catch {
      /* (the listing's own descriptor, closed since) */
    }
  }
  return out.sort((a, b) => a - b);
}

/**
 * `stdio` with each of `fds` (past its end) given `nullFd` (/dev/null, open for reading and writing), so
 * the child finds /dev/null at those numbers rather than what this process was handed; the places between
 * are `'ignore'` (libuv leaves a descriptor past the first three as it is).
 */
export function stdioWithout(stdio: readonly Stdio[], fds: number[], nullFd: number): Stdio[] {
  const out: Stdio[] = [...stdio];
  for (const fd of fds) {
    if (fd < out.length) continue;
    while (out.length < fd) out.push('ignore');
    out.push(nullFd);
  }
  return out;
}
