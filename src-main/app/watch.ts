/**
 * Follows hand edits of the workspace's files in long-lived processes (the workbench, `serve`, `mcp`):
 * `.toolsmith/config.toml`, `sandboxes/<name>/` (tools.py, requirements.txt, package.json; one watcher per folder), `suites/`,
 * `kits/` and `templates/`. Editors save by writing a new file and renaming it over the old one, so the
 * folders are watched, not the files. Changes are gathered for a short debounce, then applied: a config
 * that parses and validates replaces the running one (MCP servers, pools, limits); a broken one is
 * refused with its file, line and field, and the last good config stays in use. Every outcome is pushed
 * to the front ends as a `workspace_changed` event.
 */
import { existsSync, readdirSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { join, sep } from 'node:path';
import type { WorkspaceChange } from '../contract/api.ts';
import type { Config } from './config.ts';
import type { PushDeps, WorkspaceDeps } from './deps.ts';
import { errorMessage } from '../core/errors.ts';
import { visible } from '../core/text/visible.ts';
import { isOwnState } from '../infra/workspace/files.ts';
import { readRegularFile } from '../infra/workspace/regular-file.ts';

export interface WorkspaceWatcher {
  close(): void;
  /** Applies what changed so far now (tests, and a front end's explicit Reload). */
  flush(): Promise<void>;
}

/** What following the workspace needs: its files, reloading the config and the tools, pushing outcomes. */
export interface WatchDeps extends WorkspaceDeps, PushDeps {
  /** Re-reads config.toml and applies it; throws (keeping the running config) when it is invalid. */
  reloadConfig(): Config;
  /** Re-extracts a sandbox's tools (all sandboxes' without a name) and reloads its workers. */
  toolsChanged(sandbox?: string): Promise<{ sandbox: string; error?: string }[]>;
}

const DIRS = ['sandboxes', 'suites', 'kits', 'templates'] as const;

/**
 * The files of a sandbox folder its image is built from besides tools.py (docs/sandboxes.md): edited by
 * hand after the Tools view's save, the sandbox is reloaded though its tools.py is that save's text
 * (before, the change was taken for the save and dropped).
 */
const DEPENDENCY_FILES = new Set(['requirements.txt', 'wheels', 'package.json', 'package-lock.json']);

export function watchWorkspace(svc: WatchDeps, debounceMs = 150): WorkspaceWatcher {
  const root = svc.files.root;
  const watchers = new Map<string, FSWatcher>();
  const pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let running: Promise<void> = Promise.resolve();
  let lastConfigText = readText(svc.files.configFile);
  /** Sandboxes whose dependency files changed since their last apply (see DEPENDENCY_FILES). */
  const dependenciesChanged = new Set<string>();

  const schedule = (what: string) => {
    if (closed) return;
    pending.add(what);
    clearTimeout(timer);
    timer = setTimeout(() => void flush(), debounceMs);
  };

  const add = (key: string, dir: string, recursive: boolean, on: (name: string) => void) => {
    if (watchers.has(key) || !existsSync(dir)) return;
    try {
      const w = watch(dir, { recursive, persistent: false }, (_event, name) =>
        on(name === null ? '' : String(name)),
      );
      w.on('error', () => {
        // The folder went away (renamed or deleted): watched again when the root sees it come back.
        w.close();
        watchers.delete(key);
      });
      watchers.set(key, w);
    } catch {
      /* gone between the check and the watch: the root watcher picks it up */
    }
  };

  const watchAll = () => {
    add('.toolsmith', join(root, '.toolsmith'), false, (name) => {
      if (name === 'config.toml' || name === '') schedule('config');
    });
    for (const d of DIRS)
      add(d, join(root, d), false, (name) => {
        if (d !== 'sandboxes') return schedule(d);
        // A sandbox folder added, removed or renamed: watch the new ones.
        watchSandboxes();
        if (name) schedule(`tools:${name}`);
      });
    watchSandboxes();
  };

  // One watcher per sandbox folder (Node's recursive watch on Linux follows files, which editors replace).
  const watchSandboxes = () => {
    const dir = join(root, 'sandboxes');
    let names: string[] = [];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      /* no sandboxes folder yet */
    }
    for (const [key, w] of watchers)
      if (
        key.startsWith(`sandboxes${sep}`) &&
        !names.includes(key.slice(`sandboxes${sep}`.length).split(sep)[0] ?? '')
      ) {
        w.close();
        watchers.delete(key);
      }
    for (const n of names) {
      add(`sandboxes${sep}${n}`, join(dir, n), false, (name) => {
        // (what the sandbox's image is built from: a change of it is never the Tools view's save)
        if (name === '' || DEPENDENCY_FILES.has(name)) dependenciesChanged.add(n);
        // wheels/ made, removed or replaced: its watcher is on the folder at the path from now on.
        if (name === 'wheels') watchWheels(n, true);
        schedule(`tools:${n}`);
      });
      watchWheels(n, false);
    }
  };

  // A sandbox's wheels/ is watched too: a wheel added, replaced or removed in it changes the sandbox's
  // image (its hash covers every wheels/*.whl), and the sandbox's own watcher hears nothing of it (the
  // folder's entries are not the sandbox folder's). Before, a wheel dropped into wheels/ was never heard.
  const watchWheels = (n: string, again: boolean) => {
    const key = `sandboxes${sep}${n}${sep}wheels`;
    if (again) {
      watchers.get(key)?.close();
      watchers.delete(key);
    }
    add(key, join(root, 'sandboxes', n, 'wheels'), false, () => {
      dependenciesChanged.add(n);
      schedule(`tools:${n}`);
    });
  };

  // The root itself: a watched folder created (or re-created) later is watched from then on.
  add('', root, false, (name) => {
    if (name === '.toolsmith' || (DIRS as readonly string[]).includes(name)) {
      const w = watchers.get(name);
      if (w && !existsSync(join(root, name))) {
        w.close();
        watchers.delete(name);
      }
      watchAll();
      schedule(name === '.toolsmith' ? 'config' : name === 'sandboxes' ? 'tools:' : name);
    }
  });
  watchAll();

  const apply = async (what: string) => {
    const push = (c: WorkspaceChange) => svc.push({ type: 'workspace_changed', ...c });
    if (what === 'config') {
      const text = readText(svc.files.configFile);
      if (text === lastConfigText) {
        // Back to the config in use (a deleted file put back, a broken edit undone): nothing to
        // reload, but the refusal no longer holds.
        if (svc.files.configProblem !== undefined) {
          svc.files.configProblem = undefined;
          push({ what: 'config', file: svc.files.configFile });
        }
        return;
      }
      if (text !== undefined && text === svc.files.ownConfigText) {
        // The service's own save (Settings, Connections): applied when it was written, not an edit on disk.
        lastConfigText = text;
        svc.files.configProblem = undefined;
        return;
      }
      // A hand edit: the own save's text is in use no longer, so that text put back by hand later (an
      // undo, a checkout) is an edit too (before, it was taken for the own save and the edit stayed).
      svc.files.ownConfigText = undefined;
      try {
        svc.reloadConfig();
        lastConfigText = text;
        svc.files.configProblem = undefined;
        push({ what: 'config', file: svc.files.configFile });
      } catch (e) {
        const error = `${errorMessage(e)} (the last good config stays in use)`;
        // Said on stderr too: `serve` and `mcp` have no notice area, and their log is what is read.
        // (its words quote the file's own keys: their control characters are shown, never acted on)
        if (svc.files.configProblem !== error) process.stderr.write(`toolsmith: ${visible(error)}\n`);
        svc.files.configProblem = error;
        push({ what: 'config', file: svc.files.configFile, error });
      }
      return;
    }
    if (what.startsWith('tools:')) {
      const sandbox = what.slice('tools:'.length);
      // The service's own save (the Tools view's Save, applied and its workers reloaded as it was
      // written): not an edit on disk. Before, a save showed a second "changed on disk: applied" notice
      // and reloaded the sandbox's workers a second time.
      const own = sandbox ? svc.files.ownToolsText.get(sandbox) : undefined;
      const dependencies = dependenciesChanged.delete(sandbox);
      if (own !== undefined && !dependencies && readText(svc.files.toolsFile(sandbox)) === own) return;
      // A hand edit of this sandbox's files: the own save's text put back by hand later is an edit too.
      // (Not on a change of sandboxes/ itself: a sandbox made from a front end writes its tools.py as
      // its own save, and the folder's event may come before the file's.)
      if (sandbox) svc.files.ownToolsText.delete(sandbox);
      const r = await svc.toolsChanged(sandbox || undefined);
      for (const s of r) push({ what: 'tools', sandbox: s.sandbox, ...(s.error ? { error: s.error } : {}) });
      return;
    }
    // The service's own save (a template promoted or edited in the workbench): not an edit on disk.
    if (what === 'templates' && isOwnState(join(root, what))) return;
    push({ what: what as WorkspaceChange['what'] });
  };

  const flush = (): Promise<void> => {
    clearTimeout(timer);
    const batch = [...pending];
    pending.clear();
    running = running.then(async () => {
      for (const what of batch) {
        if (closed) return;
        await apply(what).catch((e: unknown) =>
          svc.push({
            type: 'workspace_changed',
            what: 'config',
            error: `could not apply a change of ${what}: ${errorMessage(e)}`,
          }),
        );
      }
    });
    return running;
  };

  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
    flush,
  };
}

function readText(file: string): string | undefined {
  try {
    // Never a blocking read: a named pipe saved in config.toml's place would stop the whole process
    // (the reload that follows names it).
    return readRegularFile(file, 'utf8');
  } catch {
    return undefined;
  }
}
