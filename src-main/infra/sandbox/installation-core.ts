/**
 * What the sweep of leftover containers at a verb's start needs of the installation (app/prune-light.ts,
 * reached by `runs list` and `template list` before main loads, cli/store-verbs.ts): the user data dir,
 * the labels, the installation's id (read, or made once) and whether an instance still runs. Apart from
 * installation.ts (the Installation object, its keeper, the sweep through Docker's client), which builds on
 * these, so that this path takes Node's builtins by process.getBuiltinModule: an ES import of node:crypto
 * or node:fs builds the builtin's namespace (node:crypto's webcrypto, node:fs's `promises` with its
 * readline and streams: ~5 ms of CPU of a one-shot verb), and node:crypto itself loads only when an id is
 * made (docs/scaling.md, "Issue 29: what runs list, template list and init --empty still loaded").
 */
import { join } from 'node:path';
import { ownPlace } from '../test-run-guard.ts';

const { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } = process.getBuiltinModule('node:fs');
const { homedir } = process.getBuiltinModule('node:os');

export const INSTALLATION_LABEL = 'toolsmith.installation';
export const INSTANCE_LABEL = 'toolsmith.instance';

/** A random id (an installation's, an instance's): node:crypto loaded only when one is made. */
export const randomId = (): string => process.getBuiltinModule('node:crypto').randomUUID();

/**
 * The user data dir: `$TOOLSMITH_DATA_DIR`, else `$TOOLSMITH_HOME` (which also moves the sample
 * workspace's copy and the recent list: the same folder by default, so one variable moves all of a
 * person's Toolsmith data), else `$XDG_DATA_HOME/toolsmith`, else `~/.local/share/toolsmith`.
 */
export function userDataDir(): string {
  const env = process.env['TOOLSMITH_DATA_DIR'] || process.env['TOOLSMITH_HOME'];
  if (env) return ownPlace(env);
  const xdg = process.env['XDG_DATA_HOME'];
  return ownPlace(join(xdg || join(homedir(), '.local', 'share'), 'toolsmith'));
}

export const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{7,127}$/;

/** The installation's id in `dir` (`installation-id`), made when there is none. */
export function readOrCreateId(dir: string): string {
  const file = join(dir, 'installation-id');
  if (existsSync(file)) {
    const id = readFileSync(file, 'utf8').trim();
    if (ID.test(id)) return id;
    throw new Error(`${file} does not hold an installation id (got ${JSON.stringify(id.slice(0, 40))})`);
  }
  mkdirSync(dir, { recursive: true });
  const id = randomId();
  try {
    writeFileSync(file, id + '\n', { flag: 'wx' });
    return id;
  } catch {
    // Another process wrote it first.
    return readFileSync(file, 'utf8').trim();
  }
}

/**
 * True while the instance `instance` of the installation in `dir` runs: its entry
 * (`instances/<id>.json`) exists and its process is alive. The entry of a process that died is removed on
 * the way.
 */
export function instanceEntryRunning(dir: string, instance: string): boolean {
  if (!ID.test(instance)) return false;
  const file = join(dir, 'instances', `${instance}.json`);
  if (!existsSync(file)) return false;
  try {
    const { pid } = JSON.parse(readFileSync(file, 'utf8')) as { pid?: number };
    if (typeof pid === 'number' && pidAlive(pid)) return true;
  } catch {
    /* unreadable: stale */
  }
  rmSync(file, { force: true });
  return false;
}

/** Whether process `pid` still exists (EPERM: it does, under another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A container of this installation whose process is gone (see installation.ts `pruneLeftovers`). */
export interface Leftover {
  id: string;
  name: string;
  sandbox: string;
  /** The instance (Toolsmith process) that made it, and that process's pid when it was recorded. */
  instance: string;
  ownerPid: number | null;
  /** running, exited, created... as the engine says. */
  state: string;
  created: string;
}

/** A container of this installation with whether the process that made it still runs. */
export interface InstallationContainer extends Leftover {
  live: boolean;
}

/**
 * A container of the installation as the engine lists it, as `pool status` shows it (installation.ts
 * `installationContainers` through Docker's client, cli/pool-status-early.ts from the engine's socket);
 * `running`: whether an instance of the installation still runs.
 */
export function installationContainer(
  c: { Id: string; Names: string[]; Labels: Record<string, string>; State: string; Created: number },
  running: (instance: string) => boolean,
): InstallationContainer {
  const instance = c.Labels[INSTANCE_LABEL] ?? '';
  const owner = Number(c.Labels['toolsmith.owner']);
  return {
    id: c.Id,
    name: (c.Names[0] ?? '').replace(/^\//, ''),
    sandbox: c.Labels['toolsmith.sandbox'] ?? '',
    instance,
    ownerPid: Number.isInteger(owner) ? owner : null,
    state: c.State,
    created: new Date(c.Created * 1000).toISOString(),
    live: running(instance),
  };
}
