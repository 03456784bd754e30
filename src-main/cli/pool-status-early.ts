/**
 * `toolsmith pool status [--json]` answered before main loads (bin/start.mjs, through verb-cache.ts
 * `poolStatusBeforeMain`), when the local engine answers: main's verb (commands/exec.ts) opens the whole
 * service (the config's zod schemas, the service's module graph), loads Docker's client (~1 MB of the
 * bundle) and makes the sandbox manager as for jobs (the version probe, the worker factory's ping, sweep
 * and event stream) to print the engine's version, the isolation levels, the images and that this
 * process has no pool. Here: the engine's version, the images and the installation's containers are
 * asked on its socket as `image build` asks (app/images-light.ts, app/prune-light.ts), three requests at
 * most; what comes from the config (the isolation levels of the sandboxes with their own, the enabled
 * runtimes, its warnings and the variables it names for secrets) from a digest that main's `pool status`
 * keeps when it answered with the engine (`keepPoolStatusDigest`), under the config digest's key
 * (config-digest.ts: the code, config.toml's bytes, the sandboxes, tools.py files, kits and skills).
 * Left to main, before anything is printed: `--warm`, a help, any other option or argument, the
 * workspace option after the verb, a workspace main would refuse, no digest (a config changed, invalid
 * or missing, or main has not answered with the engine since), `TOOLSMITH_BACKEND` other than `docker`,
 * `TOOLSMITH_RESOURCES` set, a remote DOCKER_HOST, an engine that does not answer its version within
 * ENGINE_WAIT_MS (none, a refusal, a hung or busy one: main's probe says which, and waits for a busy
 * one), a leftover container (main's sweep removes it and says so), an image or the containers it
 * cannot ask. docs/scaling.md, "Issue 29: pool status before main".
 */
import type { SystemStatus } from '../contract/api.ts';
import { configSecretNames, learnSecretsNamed } from '../app/env-secrets.ts';
import type { Config } from '../app/config.ts';
import { imagePaths } from '../app/images-light.ts';
import { engineVersionOnSocket, listContainersOnSocket } from '../app/prune-light.ts';
import { knownSecrets } from '../core/records/redact.ts';
import { dockerSocket, imagePresent } from '../infra/sandbox/image-check.ts';
import type { RuntimeImage } from '../infra/sandbox/images.ts';
// (the installation's core, not installation.ts: node:fs and node:crypto taken by getBuiltinModule)
import {
  INSTALLATION_LABEL,
  installationContainer,
  instanceEntryRunning,
  readOrCreateId,
  userDataDir,
} from '../infra/sandbox/installation-core.ts';
import { resolveWorkspaceDir, workspaceProblem } from '../infra/workspace/init.ts';
import { configDigestKey } from './config-digest.ts';
import { memoizedImageTag } from './image-tag-memo.ts';
import { loadJsSha256 } from './key-parts.ts';
import { printEarly } from './early-write.ts';
import { installationContainersText, poolStatusText } from './pool-status-text.ts';
import { readVerbAnswer, workspaceBeforeVerb, writeVerbAnswer } from './verb-cache.ts';

/** The digest's label in its key (configDigestKey): the config digest's own is another. */
const LABEL = '(pool status digest)';

/**
 * How long the engine's version is waited for here: an engine that has not answered by then is left to
 * main's probe (3 s, then its patience for a busy engine).
 */
const ENGINE_WAIT_MS = 1000;

/** What main's `pool status` printed that comes from the workspace, not from the engine. */
export interface PoolStatusDigest {
  /** What opening the workspace said on stderr (the config's warnings), in order. */
  said: string[];
  /** The status's `configWarnings` (the `[approval]` names that match nothing, keys no setting has). */
  configWarnings: string[];
  /** The isolation levels, the engine answering (`docker; gvisor: ecommerce`). */
  isolation: string;
  /** The runtimes whose images are listed, in main's order. */
  runtimes: string[];
  /** The environment variables the config names for secrets (never their values). */
  secrets: string[];
}

/** The digest's key for the workspace `dir` as it is now; undefined when it cannot be read. */
export function poolStatusDigestKey(dir: string): string | undefined {
  return configDigestKey(dir, LABEL);
}

/**
 * Kept by main's `pool status` (without `--warm`) after it answered with the engine and a valid config;
 * best effort, as every answer of the verb cache.
 */
export function keepPoolStatusDigest(
  dir: string,
  key: string,
  s: SystemStatus,
  config: Config,
  said: readonly string[],
): void {
  if (!s.docker.available || s.configProblem !== undefined || s.isolationReason !== undefined) return;
  if (s.pools.length > 0) return;
  const digest: PoolStatusDigest = {
    said: [...said],
    configWarnings: s.configWarnings ?? [],
    isolation: s.isolation,
    runtimes: s.images.map((i) => i.runtime),
    secrets: configSecretNames(config),
  };
  writeVerbAnswer(dir, { key, out: JSON.stringify(digest), err: '' });
}

function readDigest(dir: string, key: string): PoolStatusDigest | undefined {
  try {
    const d = JSON.parse(readVerbAnswer(dir, key)?.out ?? 'null') as PoolStatusDigest | null;
    return d &&
      Array.isArray(d.said) &&
      Array.isArray(d.configWarnings) &&
      typeof d.isolation === 'string' &&
      Array.isArray(d.runtimes) &&
      Array.isArray(d.secrets)
      ? d
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The command line read as `pool status [--json]`, the workspace option only before the verb: the
 * workspace option's value and whether `--json` was given; undefined for main to read.
 */
export function poolStatusAsked(
  argv: string[],
): { workspace: string | undefined; json: boolean } | undefined {
  const before = workspaceBeforeVerb(argv);
  if (!before) return undefined;
  const { workspace, next: i } = before;
  if (argv[i] !== 'pool' || argv[i + 1] !== 'status') return undefined;
  const rest = argv.slice(i + 2);
  if (!rest.every((a) => a === '--json')) return undefined;
  return { workspace, json: rest.length > 0 };
}

const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';

/**
 * bin/start.mjs's step for `pool status`: the answer printed and its exit code, or undefined (nothing
 * printed) for main() to run.
 */
export async function answerPoolStatus(argv: string[]): Promise<number | undefined> {
  const asked = poolStatusAsked(argv);
  if (!asked) return undefined;
  const forced = process.env['TOOLSMITH_BACKEND'];
  if ((forced && forced !== 'docker') || process.env['TOOLSMITH_RESOURCES']) return undefined;
  if (!dockerSocket()) return undefined;
  let dir: string;
  try {
    dir = resolveWorkspaceDir(asked.workspace);
    if (workspaceProblem(dir, asked.workspace ?? dir) !== undefined) return undefined;
  } catch {
    return undefined;
  }
  // (the verbs file's name and a signature's secrets hashed in JS: node:crypto is loaded only when a key
  // or an image tag must be hashed, not for a settled install; image-tag-memo.ts)
  await loadJsSha256();
  const key = poolStatusDigestKey(dir);
  const digest = key === undefined ? undefined : readDigest(dir, key);
  if (!digest) return undefined;
  const data = userDataDir();
  const installation = readOrCreateId(data);
  const paths = imagePaths();
  // Asked together (the engine's answers are most of this verb's wall time on a loaded machine); the
  // version decides: without it, main answers (what else was asked ends within its own timeout).
  // (listed with --json too: a leftover is main's to sweep and say)
  const versioning = engineVersionOnSocket(ENGINE_WAIT_MS);
  const listing = listContainersOnSocket(['toolsmith.pool=1', `${INSTALLATION_LABEL}=${installation}`]);
  const asking = digest.runtimes.map(async (runtime) => {
    try {
      const tag = memoizedImageTag(dir, runtime as RuntimeImage, paths);
      return { runtime, tag, present: await imagePresent(tag) };
    } catch {
      return { runtime, tag: '', present: undefined }; // (main's to say)
    }
  });
  const version = await versioning;
  if (version === undefined) return undefined;
  const [listed, ...asks] = await Promise.all([listing, ...asking]);
  if (!Array.isArray(listed)) return undefined;
  const images: SystemStatus['images'] = [];
  for (const i of asks) {
    if (i.present === undefined) return undefined;
    images.push({ runtime: i.runtime, tag: i.tag, present: i.present });
  }
  const containers = listed
    .filter((c) => c.Labels?.[INSTALLATION_LABEL] === installation)
    .map((c) =>
      installationContainer({ ...c, Labels: c.Labels ?? {} }, (i) => instanceEntryRunning(data, i)),
    );
  // A container a stopped process left: main's sweep removes it (and says so) before it lists.
  if (containers.some((c) => !c.live)) return undefined;
  const s: SystemStatus = {
    docker: { available: true, version },
    isolation: digest.isolation,
    images,
    pools: [],
    ...(digest.configWarnings.length ? { configWarnings: digest.configWarnings } : {}),
  };
  learnSecretsNamed(digest.secrets);
  const out = asked.json ? json(s) : poolStatusText(s) + installationContainersText(containers);
  return printEarly(knownSecrets.text(out), knownSecrets.text(digest.said.join('')), 0);
}
