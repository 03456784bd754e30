/**
 * A long-lived process (the workbench, `serve`, `mcp`) opened on a path that leads through a symbolic
 * link: it opens the folder the link led to at start, and stays there (its run store, its watchers, its
 * sandboxes' files, and the runs in flight are all in that folder). Reading files through the link
 * instead would mix two workspaces once the link is retargeted: runs recorded in the first one's store,
 * tools and templates read from the second. When the link is retargeted or removed, this says so once
 * per change, naming both folders and what to do.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** The folder `path` leads to now, through every link on the way; undefined when it leads nowhere. */
export function realFolder(path: string): string | undefined {
  try {
    return realpathSync(resolve(path));
  } catch {
    return undefined;
  }
}

/** The sentence said when the link `opened` now leads elsewhere (`now`), or nowhere. */
export function linkMovedLine(opened: string, root: string, now: string | undefined): string {
  const stay = `this process stays on ${root}, the folder it opened at start (its runs, its files and the runs in flight are there)`;
  return now === undefined
    ? `the workspace ${opened} no longer leads to a folder (its link was removed or leads nowhere): ${stay}; put the link back, or restart on the workspace you mean`
    : `the workspace ${opened} now leads to ${now}, not to ${root}: ${stay}; to work in ${now}, restart this server (--workspace ${opened} then opens it), or open ${now} from the workbench's Workspace view`;
}

/**
 * Checks every `everyMs` where `opened` leads, and calls `say` once for each change away from `root`
 * (a link set back to `root` and moved again is said again). `close()` stops it; the timer never keeps
 * the process alive.
 */
export function followWorkspaceLink(
  opened: string,
  root: string,
  say: (line: string) => void,
  everyMs = 1000,
): { close(): void } {
  let said: string | undefined = root;
  const timer = setInterval(() => {
    const now = realFolder(opened);
    if (now === said) return;
    said = now;
    if (now !== root) say(linkMovedLine(opened, root, now));
  }, everyMs);
  timer.unref();
  return { close: () => clearInterval(timer) };
}
