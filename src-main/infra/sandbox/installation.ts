/**
 * Who owns a sandbox container. Every container carries the installation's id (a random id written once
 * to the user data dir) and the id of the Toolsmith process (instance) that made it. Leftover cleanup
 * only ever looks at containers of its own installation: containers of another installation on a shared
 * or remote engine are never touched, whatever their labels say. Within the installation, a container
 * is a leftover when its instance is no longer registered as running in this installation's data dir
 * (`instances/<id>.json`, written at start and removed at dispose; an entry whose process is gone is
 * stale). Container labels are never compared with local process ids.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import {
  INSTALLATION_LABEL,
  installationContainer,
  instanceEntryRunning,
  randomId,
  readOrCreateId,
  userDataDir,
} from './installation-core.ts';

// The labels, the data dir and the id's file (installation-core.ts: what a verb's start-up sweep needs).
export { INSTALLATION_LABEL, INSTANCE_LABEL, pidAlive, userDataDir } from './installation-core.ts';
export type { InstallationContainer, Leftover } from './installation-core.ts';
import type { InstallationContainer, Leftover } from './installation-core.ts';

/**
 * The instances of this process that are registered: their entries are removed at the process's exit,
 * whichever way it exits (`process.exit` included). A stop signal whose close did not end within its
 * grace (cli/signals.ts) exits without the pools' dispose, which unregisters; before, the entry stayed,
 * taken for a dead process only while no other process had its pid: a later process given that pid
 * made its containers look alive to the sweep (never removed) and to `pool status`. What such a process
 * leaves now is only containers of an instance no longer registered: leftovers, which the next start
 * removes (the line of cli/signals.ts says so).
 */
const atExit = new Set<Installation>();
const unregisterAll = (): void => {
  for (const i of [...atExit])
    try {
      i.unregister();
    } catch {
      // (the folder cannot be written any more: the entry is a dead process's, told by its pid)
    }
};

/** How often a registered instance checks that its installation's files are still there (see keep). */
const KEEP_MS = 500;

export class Installation {
  readonly dir: string;
  readonly id: string;
  /** This process's instance id (one per Installation object). */
  readonly instance: string;
  private registered = false;
  /** The check that writes the id and this instance's entry back (see keep). */
  private keeper: ReturnType<typeof setInterval> | undefined;
  /** The id on disk is another one: said once (see keep). */
  private otherIdSaid = '';
  /** Where keep's lines go (stderr; tests catch them). */
  warn: (line: string) => void = (line) => process.stderr.write(`toolsmith: ${line}\n`);

  constructor(dir: string = userDataDir()) {
    this.dir = dir;
    this.id = readOrCreateId(dir);
    this.instance = randomId();
  }

  private get instancesDir(): string {
    return join(this.dir, 'instances');
  }

  private started = new Date().toISOString();

  private writeEntry(): void {
    mkdirSync(this.instancesDir, { recursive: true });
    writeFileSync(
      join(this.instancesDir, `${this.instance}.json`),
      JSON.stringify({ pid: process.pid, started: this.started }) + '\n',
    );
  }

  /**
   * Records this instance as running (its containers are not leftovers while it lives), and keeps the
   * record (see keep) every KEEP_MS while it is registered.
   */
  register(): void {
    if (this.registered) return;
    this.writeEntry();
    this.registered = true;
    atExit.add(this);
    if (atExit.size === 1) process.on('exit', unregisterAll);
    const ms = Number(process.env['TOOLSMITH_INSTALLATION_KEEP_MS'] ?? KEEP_MS);
    if (ms > 0) {
      this.keeper = setInterval(() => this.keep(), ms);
      this.keeper.unref();
    }
  }

  /**
   * The data folder removed (or its `installation-id`, or this instance's entry) while this process
   * runs: the next process would make a new installation id, and this process's containers, labelled
   * with the id it holds, would belong to no installation (never pruned once it is gone), and with the
   * id kept but the entry gone, another process of the installation would take its live containers for
   * leftovers and remove them. The id this process holds is written back (never replaced: one another
   * process made meanwhile is left, and said), and its entry too, with a line naming what happened.
   */
  keep(): void {
    if (!this.registered) return;
    const file = join(this.dir, 'installation-id');
    let onDisk: string | undefined;
    try {
      onDisk = readFileSync(file, 'utf8').trim();
    } catch {
      onDisk = undefined;
    }
    const entry = join(this.instancesDir, `${this.instance}.json`);
    try {
      if (onDisk === undefined) {
        const folderGone = !existsSync(this.dir);
        mkdirSync(this.dir, { recursive: true });
        try {
          writeFileSync(file, this.id + '\n', { flag: 'wx' });
        } catch {
          return; // Another process wrote one first: seen at the next check.
        }
        this.writeEntry();
        this.warn(
          `${folderGone ? `the data folder ${this.dir} was removed` : `${file} was removed`} while this process (pid ${process.pid}) runs; ` +
            `it wrote back its installation id ${this.id} (the one its sandbox containers are labelled with) and its entry as a running instance, ` +
            `so the next Toolsmith process does not make a new installation and its containers stay known (pruned once they are left over); ` +
            `the recent workspaces list in it is gone and starts anew`,
        );
        return;
      }
      if (onDisk !== this.id) {
        if (this.otherIdSaid !== onDisk)
          this.warn(
            `${file} holds the installation id ${onDisk}, not the id ${this.id} this process (pid ${process.pid}) started with: it was removed and another process made a new one; ` +
              `the containers of this process (labelled ${this.id}) will not be pruned by processes of ${onDisk}; ` +
              `once this process ends, remove them with \`docker rm -f $(docker ps -aq --filter label=${INSTALLATION_LABEL}=${this.id})\``,
          );
        this.otherIdSaid = onDisk;
        return;
      }
      if (!existsSync(entry)) {
        this.writeEntry();
        this.warn(
          `this process's entry as a running instance (${entry}) was removed while it (pid ${process.pid}) runs; it wrote it back, so its containers are not taken for leftovers`,
        );
      }
    } catch (e) {
      this.warn(`could not write back the installation's files in ${this.dir}: ${(e as Error).message}`);
    }
  }

  unregister(): void {
    if (this.keeper) clearInterval(this.keeper);
    this.keeper = undefined;
    atExit.delete(this);
    if (atExit.size === 0) process.off('exit', unregisterAll);
    if (!this.registered) return;
    rmSync(join(this.instancesDir, `${this.instance}.json`), { force: true });
    this.registered = false;
  }

  /**
   * True while the instance (of this installation) runs: its entry exists and its process is alive.
   * Entries of processes that died are removed on the way.
   */
  instanceRunning(instance: string): boolean {
    if (instance === this.instance) return true;
    return instanceEntryRunning(this.dir, instance);
  }

  /** The instances registered as running (stale entries dropped). */
  runningInstances(): string[] {
    if (!existsSync(this.instancesDir)) return [];
    return readdirSync(this.instancesDir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .filter((i) => this.instanceRunning(i));
  }
}

/**
 * Every sandbox container of this installation on the engine, whichever Toolsmith process made it (the
 * workbench, `serve`, `mcp`, a CLI verb): what `pool status` shows beside the pools of its own process.
 */
export async function installationContainers(
  docker: Docker,
  installation: Installation,
): Promise<InstallationContainer[]> {
  const all = await docker.listContainers({
    all: true,
    filters: { label: [`toolsmith.pool=1`, `${INSTALLATION_LABEL}=${installation.id}`] },
  });
  return all
    .filter((c) => c.Labels[INSTALLATION_LABEL] === installation.id)
    .map((c) => installationContainer(c, (i) => installation.instanceRunning(i)));
}

/**
 * The containers of `installation` on `docker` whose instance no longer runs (its process was killed or
 * crashed), removed unless `dryRun`. Containers of other installations are never listed, whatever
 * their labels say about pids; containers of instances that still run are kept.
 */
export async function pruneLeftovers(
  docker: Docker,
  installation: Installation,
  opts: { dryRun?: boolean } = {},
): Promise<Leftover[]> {
  const all = await docker.listContainers({
    all: true,
    filters: { label: [`toolsmith.pool=1`, `${INSTALLATION_LABEL}=${installation.id}`] },
  });
  const out: Leftover[] = [];
  for (const c of all) {
    // The label filter is the engine's; checked again here (a second wall against a filter ignored).
    if (c.Labels[INSTALLATION_LABEL] !== installation.id) continue;
    const { live, ...left } = installationContainer(c, (i) => installation.instanceRunning(i));
    if (live) continue;
    out.push(left);
    if (!opts.dryRun)
      await docker
        .getContainer(c.Id)
        .remove({ force: true })
        .catch((e: { statusCode?: number }) => {
          if (e.statusCode !== 404) throw e;
        });
  }
  return out;
}
