/**
 * What a one-shot verb loads, as a fresh process: the sources (a clone) and the bundle the packed
 * package runs (out/cli, scripts/build-cli.mjs); and what bin/start.mjs answers before main loads. A verb's start time is mostly what it loads, so the
 * light verbs (`--help`, `sandboxes` from its snapshot, `kit list` and `tools` from the verb cache, a
 * cached `image build`, `validate FILE`) must
 * not pull in the SDKs, zod, dockerode or the parsers they do not use, nor Node's undici (which an ES
 * import of `node:http` loads). Every module resolved is recorded by a load hook in the child.
 * Needs Docker and the python image (`image build` answers from the engine).
 */
import { fileURLToPath } from 'node:url';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Installation } from '../../../src-main/infra/sandbox/installation.ts';
import { createPoolContainer } from './support/pool-container.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { SETTLE_MS } from '../../../src-main/cli/key-parts.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const node = join(root, 'node_modules/.bin/node');
let dir: string;
let ws: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-start-imports-'));
  ws = tempWorkspace('toolsmith-start-imports-ws-');
  writeFileSync(join(ws, 'good.py'), 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import module from 'node:module';
const { writeFileSync } = process.getBuiltinModule('node:fs');
const urls = new Set();
module.registerHooks({ resolve(s, c, next) { const r = next(s, c); urls.add(r.url); return r; } });
process.on('exit', () => writeFileSync(process.env.PROBE_OUT, JSON.stringify({ urls: [...urls], internal: process.moduleLoadList })));
`,
  );
  writeFileSync(
    join(dir, 'run.mjs'),
    `import { pathToFileURL } from 'node:url';
const { main } = await import(pathToFileURL(process.env.ENTRY).href);
process.exitCode = await main(process.argv.slice(2));
`,
  );
  env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), TOOLSMITH_HOME: join(dir, 'home') };
  // The bundle the packed package carries (prepack builds it the same way, from the package's root: the
  // bundle's module comments are paths relative to where it is built, and this file runs in a folder of
  // its own).
  execFileSync(node, [join(root, 'scripts/build-cli.mjs')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeWorkspace(ws);
});

const ENTRIES = {
  sources: join(root, 'src-main/cli/main.ts'),
  bundle: join(root, 'out/cli/main.js'),
};

/**
 * Runs one verb in a fresh Node 24; the packages it loaded from node_modules, the bytes of the bundle's
 * own files it loaded (out/cli: every package is bundled there), and whether undici was loaded.
 */
function loads(
  entry: string,
  args: string[],
  script = join(dir, 'run.mjs'),
  more: NodeJS.ProcessEnv = {},
): {
  packages: string[];
  bundleBytes: number;
  undici: boolean;
  out: string;
  err: string;
  urls: string[];
  internal: string[];
} {
  const out = join(dir, 'probe.json');
  const r = spawnSync(node, ['--import', join(dir, 'probe.mjs'), script, ...args], {
    env: { ...env, ENTRY: entry, PROBE_OUT: out, ...more },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  const { urls, internal } = JSON.parse(readFileSync(out, 'utf8')) as { urls: string[]; internal: string[] };
  const packages = new Set<string>();
  let bundleBytes = 0;
  for (const u of urls) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u);
    if (m) packages.add(m[1]!);
    else if (u.startsWith('file:') && u.includes('/out/cli/')) bundleBytes += statSync(new URL(u)).size;
  }
  return {
    packages: [...packages].sort(),
    bundleBytes,
    undici: internal.some((m) => m.includes('undici')),
    out: r.stdout,
    err: r.stderr,
    urls,
    internal,
  };
}

/**
 * Node's internals that a start before main must not load (bin/start.mjs, verb-cache.ts and what they
 * load take builtins with process.getBuiltinModule): node:fs's lazy `promises` and node:crypto's
 * webcrypto, which an ES import of the builtin loads when it builds the module's namespace (~3-5 ms of a
 * ~25 ms start), and Node's HTTP client (the cached image check writes its request on a plain socket).
 */
const EAGER = [
  'NativeModule internal/fs/promises',
  'NativeModule internal/crypto/webcrypto',
  'NativeModule _http_client',
];
const eager = (r: { internal: string[] }) => r.internal.filter((m) => EAGER.includes(m));

/**
 * The sources load commander from node_modules and nothing else; the bundle loads no package at all (all
 * are inside it) and only a small part of itself: its main chunk and the verb's, never the chunks of the
 * SDKs, zod (~200 KB), dockerode (~1.2 MB) or the parsers (LIGHT_BYTES; the whole bundle is ~8 MB).
 */
const LIGHT_BYTES = 256 * 1024;
function expectLight(kind: string, r: { packages: string[]; bundleBytes: number }) {
  if (kind === 'sources') expect(r.packages).toEqual(['commander']);
  else {
    expect(r.packages).toEqual([]);
    expect(r.bundleBytes).toBeGreaterThan(0);
    expect(r.bundleBytes).toBeLessThan(LIGHT_BYTES);
  }
}

describe.each(Object.entries(ENTRIES))('a one-shot verb loads only what it uses (%s)', (kind, entry) => {
  it('--help: commander only', () => {
    const r = loads(entry, ['--help']);
    expect(r.out).toContain('Usage: toolsmith');
    expectLight(kind, r);
    expect(r.undici).toBe(false);
  });

  it('sandboxes from its snapshot: commander only', () => {
    loads(entry, ['--workspace', ws, 'sandboxes']); // the full path writes the snapshot
    const r = loads(entry, ['--workspace', ws, 'sandboxes']);
    expect(r.out).toContain('ecommerce');
    expectLight(kind, r);
    expect(r.undici).toBe(false);
  });

  it('kit list, tools, prompt, skill list and mcp-servers list from the verb cache: commander only', () => {
    for (const args of [
      ['--workspace', ws, 'kit', 'list'],
      ['--workspace', ws, 'tools', '--sandbox', 'ecommerce'],
      // (its full path opens the service: zod, pyright, the records' schemas, the store; ~5x the Node start)
      ['--workspace', ws, 'prompt', '--task', 'email of user u1', '--sandbox', 'ecommerce'],
      // (their full path reads the workspace without the service, but still loads zod, the config's
      // schemas and pyright's and Babel's parsers: ~3.5x the Node start)
      ['--workspace', ws, 'skill', 'list', '--json'],
      ['--workspace', ws, 'mcp-servers', 'list', '--json'],
    ]) {
      const full = loads(entry, args); // the full path writes the answer
      const r = loads(entry, args);
      expect(r.out).toBe(full.out);
      expect(r.out.length).toBeGreaterThan(0);
      expectLight(kind, r);
      expect(r.undici).toBe(false);
    }
  });

  it("init --empty: commander only (not the workspace reader's template parsers, pyright's and Babel's)", () => {
    const target = join(dir, `init-${kind}`);
    const r = loads(entry, ['init', '--empty', target]);
    expect(r.out).toMatch(/^created workspace .* \(empty skeleton\)$/m);
    expect(existsSync(join(target, '.toolsmith', 'config.toml'))).toBe(true);
    expectLight(kind, r);
    expect(r.undici).toBe(false);
    // An existing workspace there: the same usage error as before (WorkspaceError, now from atomic.ts).
    const again = spawnSync(node, [join(dir, 'run.mjs'), 'init', '--empty', target], {
      env: { ...env, ENTRY: entry },
      encoding: 'utf8',
    });
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/^toolsmith: /);
  });

  it('a cached image build: commander only, and no undici (one request to the engine over node:http)', () => {
    loads(entry, ['image', 'build']); // builds it when missing
    const r = loads(entry, ['image', 'build']);
    expect(r.out).toMatch(/^toolsmith\/python:/m);
    expectLight(kind, r);
    expect(r.undici).toBe(false);
  }, 600_000);

  it("validate FILE: commander and pyright's parser, nothing else", () => {
    // A script of its own: the other kind's answer, in the verb cache, would answer this one.
    const script = join(ws, `good-${kind}.py`);
    writeFileSync(script, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
    const r = loads(entry, ['--workspace', ws, 'validate', script, '--sandbox', 'ecommerce']);
    expect(r.out).toBe(`${script}: valid (python)\n`);
    // The bundle carries pyright's parser inside it (scripts/build-cli.mjs), and every other package.
    const allowed = new Set(kind === 'sources' ? ['commander', '@zzzen/pyright-internal', 'vscode-uri'] : []);
    expect(r.packages.filter((p) => !allowed.has(p))).toEqual([]);
    // The parser's chunk (its English messages only, scripts/cli-pyright.mjs: with pyright's 15 locales
    // it was 2 MB) and the validator's, not the SDKs' or dockerode's.
    if (kind === 'bundle') expect(r.bundleBytes).toBeLessThan(1024 * 1024);
    expect(r.undici).toBe(false);
  });
});

/** Whether a run loaded Docker's client: its package (sources), or a bundle chunk that holds it. */
const dockerodeLoaded = (r: { packages: string[]; urls: string[] }) =>
  r.packages.includes('dockerode') ||
  r.urls.some(
    (u) =>
      u.startsWith('file:') &&
      u.includes('/out/cli/') &&
      /^\/\/ (?:\S*\/)?node_modules\/dockerode\//m.test(readFileSync(new URL(u), 'utf8')),
  );

describe.each(Object.entries(ENTRIES))("the sweep of leftovers at a verb's start (%s)", (kind, entry) => {
  it("asks the engine without Docker's client, and loads it only to remove what a stopped process left", () => {
    // The python image, for containers that are only created (never started).
    loads(entry, ['image', 'build']);
    const tag = /^(toolsmith\/python:\S+)/m.exec(loads(entry, ['image', 'build']).out)?.[1];
    expect(tag).toBeDefined();
    const data = join(dir, `home-sweep-${kind}`);
    const installation = new Installation(data);
    // A process of this installation that still runs (this one), and its container: never a leftover.
    installation.register();
    const made: string[] = [];
    const create = (instance: string) => {
      const id = createPoolContainer(tag!, { installation: installation.id, instance, sandbox: 'ecommerce' });
      made.push(id);
      return id;
    };
    const exists = (id: string) => spawnSync('docker', ['inspect', id], { stdio: 'ignore' }).status === 0;
    const home = { TOOLSMITH_HOME: data, TOOLSMITH_DATA_DIR: data };
    try {
      for (const args of [
        ['--workspace', ws, 'runs', 'list'],
        ['--workspace', ws, 'template', 'list'],
        ['--workspace', ws, 'skill', 'list', '--sandbox', 'ecommerce'],
      ]) {
        const r = loads(entry, args, undefined, home);
        expect((r.out + r.err).length).toBeGreaterThan(0);
        expect(dockerodeLoaded(r), args.join(' ')).toBe(false);
      }
      // (`skill list` sweeps as every verb that may run a sandbox does; `runs list` and `template list`
      // make no container and do not sweep: below. Each in a form of its own: main answers a command
      // line it answered before from the verb cache, which sweeps nothing.)
      const sweeping = (...form: string[]) => ['--workspace', ws, 'skill', 'list', ...form];
      // No engine on the socket (none installed, or stopped): nothing to sweep, and no Docker client.
      const noEngine = loads(entry, sweeping('--sandbox=ecommerce'), undefined, {
        ...home,
        DOCKER_HOST: `unix://${join(dir, 'no-docker.sock')}`,
      });
      expect(dockerodeLoaded(noEngine)).toBe(false);
      // (nothing said of the engine: only `skill list`'s own line, that the sandbox has no skills)
      expect(noEngine.err).not.toMatch(/^toolsmith:/m);
      const live = create(installation.instance);
      const kept = loads(entry, sweeping('--json', '--sandbox', 'ecommerce'), undefined, home);
      expect(dockerodeLoaded(kept)).toBe(false);
      expect(exists(live)).toBe(true);
      // A container whose process is gone (no entry in the installation's instances/): the full sweep.
      const left = create(randomUUID());
      // `runs list` and `template list` leave it (no Docker client, nothing said) for the next verb that
      // may run a sandbox.
      for (const args of [
        ['--workspace', ws, 'runs', 'list'],
        ['--workspace', ws, 'template', 'list'],
      ]) {
        const r = loads(entry, args, undefined, home);
        expect(dockerodeLoaded(r), args.join(' ')).toBe(false);
        expect(r.err, args.join(' ')).not.toContain('removed');
        expect(exists(left), args.join(' ')).toBe(true);
      }
      const swept = loads(entry, sweeping('--json', '--sandbox=ecommerce'), undefined, home);
      expect(dockerodeLoaded(swept)).toBe(true);
      expect(swept.err).toContain(
        'toolsmith: removed 1 container(s) left by stopped Toolsmith processes of this installation\n',
      );
      expect(exists(left)).toBe(false);
      expect(exists(live)).toBe(true);
    } finally {
      installation.unregister();
      for (const id of made) spawnSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
    }
  }, 600_000);
});

/**
 * The modules of src-main and the packages a run loaded: from its URLs (sources), or from the module
 * comments of the bundle's chunks it loaded (each module starts with a `// path` comment there).
 */
function modulesLoaded(r: { urls: string[] }): Set<string> {
  const mods = new Set<string>();
  for (const u of r.urls) {
    if (!u.startsWith('file:')) continue;
    const path = fileURLToPath(u);
    if (path.includes('/out/cli/'))
      for (const m of readFileSync(path, 'utf8').matchAll(
        /^\/\/ (?:\S*\/)?((?:src-main|node_modules)\/\S+)$/gm,
      ))
        mods.add(m[1]!);
    else if (path.startsWith(root)) mods.add(path.slice(root.length));
  }
  return mods;
}

/**
 * What a listing verb that reads the workspace (app/workspace-reader.ts) must not load: the service and
 * the run orchestrator, the script validators (pyright's rules, Babel's types), pino, the suites.
 */
const SERVICE_ONLY = [
  'src-main/app/service.ts',
  'src-main/app/runs.ts',
  'src-main/app/templates.ts',
  'src-main/app/skills.ts',
  'src-main/app/suites.ts',
  'src-main/core/lang/python/validate.ts',
  'src-main/core/lang/js/validate.ts',
  'node_modules/@babel/types/',
  'node_modules/pino/',
  'node_modules/jsonpath-plus/',
];

describe.each(Object.entries(ENTRIES))(
  'a listing verb reads the workspace without the service (%s)',
  (kind, entry) => {
    it('runs list, template list, skill list and mcp-servers list load neither the validators, pino, the suites nor the service; runs list --suite-run does', () => {
      const home = { TOOLSMITH_HOME: join(dir, `home-readers-${kind}`), TOOLSMITH_BACKEND: 'process' };
      for (const [args, expected] of [
        [['--workspace', ws, 'runs', 'list'], /^0 of 0 run\(s\)$/m],
        [['--workspace', ws, 'runs', 'list', '--json'], /"runs": \[\]/],
        [['--workspace', ws, 'template', 'list', '--json'], /"templates": \[\]/],
        [['--workspace', ws, 'skill', 'list', '--sandbox', 'ecommerce', '--json'], /"skills": \[\]/],
        [['--workspace', ws, 'mcp-servers', 'list'], /^no MCP servers declared/m],
      ] as const) {
        const r = loads(entry, [...args], undefined, home);
        expect(r.out, args.join(' ')).toMatch(expected);
        const mods = [...modulesLoaded(r)];
        expect(mods.length, args.join(' ')).toBeGreaterThan(0);
        expect(
          SERVICE_ONLY.filter((m) => mods.some((x) => x.startsWith(m))),
          args.join(' '),
        ).toEqual([]);
      }
      // A suite run is resolved by the suites, which the service opens: the service's path, as before.
      const suites = spawnSync(
        node,
        [
          '--import',
          join(dir, 'probe.mjs'),
          join(dir, 'run.mjs'),
          '--workspace',
          ws,
          'runs',
          'list',
          '--suite-run',
          'nope',
        ],
        {
          env: { ...env, ...home, ENTRY: entry, PROBE_OUT: join(dir, 'probe-suites.json') },
          encoding: 'utf8',
        },
      );
      expect(suites.status, suites.stderr).toBe(2);
      expect(suites.stderr).toMatch(/^toolsmith: .*nope/m);
      const { urls } = JSON.parse(readFileSync(join(dir, 'probe-suites.json'), 'utf8')) as { urls: string[] };
      expect([...modulesLoaded({ urls })].some((m) => m.startsWith('src-main/app/suites.ts'))).toBe(true);
    }, 120_000);
  },
);

describe('bin/start.mjs: a verb cache hit', () => {
  it('answers kit list, kit info, tools, prompt, sandboxes, validate FILE and every help before main loads: no main module, no package (not even commander)', () => {
    const mainLoaded = (urls: string[]) => urls.some((u) => u.endsWith('/src-main/cli/main.ts'));
    for (const args of [
      ['--workspace', ws, 'kit', 'list', '--json'],
      ['--workspace', ws, 'prompt', '--task', 'email of user u1', '--json'],
      ['--workspace', ws, 'kit', 'info', 'orders'],
      ['--workspace', ws, 'tools', '--sandbox', 'ecommerce', '--format', 'json'],
      ['--workspace', ws, 'validate', join(ws, 'good.py'), '--sandbox', 'ecommerce', '--json'],
      ['--workspace', ws, 'sandboxes'],
      ['--workspace', ws, 'sandboxes', '--json'],
      [],
      ['--help'],
      ['-h'],
      ['help', 'kit'],
      ['sandboxes', '--help'],
      ['kit', 'list', '--help'],
      ['--workspace', ws, 'run', '--help'],
    ]) {
      // (A cache folder of its own: the tests above left main's answers of some of these in theirs.)
      const start = (a: string[]) =>
        loads('', a, join(root, 'bin/start.mjs'), { XDG_CACHE_HOME: join(dir, 'cache-start') });
      const full = start(args); // the full path writes the answer
      // (validate FILE of a workspace with a snapshot is checked before main loads, with pyright.)
      if (args.includes('validate')) expect(full.packages).toContain('@zzzen/pyright-internal');
      else expect(mainLoaded(full.urls)).toBe(true);
      const r = start(args);
      expect(r.out).toBe(full.out);
      expect(r.out.length).toBeGreaterThan(0);
      expect(mainLoaded(r.urls), args.join(' ')).toBe(false);
      expect(r.packages).toEqual([]);
      expect(eager(r), args.join(' ')).toEqual([]);
    }
  });
});

describe('bin/start.mjs: a cached image build', () => {
  it('answers `image build [--runtime R]` of a built image before main loads (no main module, no package), as main does', () => {
    const mainLoaded = (urls: string[]) => urls.some((u) => u.endsWith('/src-main/cli/main.ts'));
    for (const args of [
      ['image', 'build'],
      ['image', 'build', '--runtime', 'python'],
      ['--workspace', ws, 'image', 'build', '--runtime=python'],
    ]) {
      const main = loads(ENTRIES.sources, args); // main's own answer (it builds the image when missing)
      expect(main.out).toMatch(/^toolsmith\/python:[0-9a-f]+\n$/);
      const r = loads('', args, join(root, 'bin/start.mjs'));
      expect(r.out).toBe(main.out);
      expect(mainLoaded(r.urls)).toBe(false);
      expect(r.packages).toEqual([]);
      expect(eager(r)).toEqual([]);
    }
    // Anything else goes to main: a sandbox's derived image, another option.
    const other = loads('', ['image', 'build', '--help'], join(root, 'bin/start.mjs'));
    expect(mainLoaded(other.urls)).toBe(true);
  }, 600_000);
});

describe('bin/start.mjs: validate FILE from the sandboxes snapshot', () => {
  it('checks a new script before main loads (no main module, no commander), answering as main does', () => {
    const mainLoaded = (urls: string[]) => urls.some((u) => u.endsWith('/src-main/cli/main.ts'));
    loads(ENTRIES.sources, ['--workspace', ws, 'sandboxes']); // the snapshot, written if missing
    // Each script is new to the verb cache.
    const good = join(ws, 'early-good.py');
    writeFileSync(good, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
    const r = loads(
      '',
      ['--workspace', ws, 'validate', good, '--sandbox', 'ecommerce'],
      join(root, 'bin/start.mjs'),
    );
    expect(r.out).toBe(`${good}: valid (python)\n`);
    expect(mainLoaded(r.urls)).toBe(false);
    expect(eager(r)).toEqual([]);
    expect(r.packages).not.toContain('commander'); // (the clone's pyright is a package of node_modules)
    // An invalid script: exit 1 and main's very output (main runs as run.mjs calls it).
    const answer = (script: string, entry: string[]) => {
      writeFileSync(script, 'import os\nr = get_user(user_id="u1")\nemit_result(r.data)\n');
      const p = spawnSync(
        node,
        [...entry, '--workspace', ws, 'validate', script, '--sandbox', 'ecommerce', '--json'],
        {
          env: { ...env, ENTRY: ENTRIES.sources },
          encoding: 'utf8',
        },
      );
      expect(p.status, p.stderr).toBe(1);
      return p.stdout.replaceAll(script, 'FILE');
    };
    const early = answer(join(ws, 'early-bad-1.py'), [join(root, 'bin/start.mjs')]);
    expect(early).toContain('"rule": "no-import"');
    expect(answer(join(ws, 'early-bad-2.py'), [join(dir, 'run.mjs')])).toBe(early);
  });
});

/**
 * The installed package's start: bin/ copied under a node_modules folder (so bin/start.mjs takes the
 * bundle) and everything else linked to the clone's; its URLs resolve to the clone's out/cli.
 */
function installedStart(): string {
  const pkg = join(dir, 'installed', 'node_modules', 'toolsmith-workbench');
  if (!existsSync(pkg)) {
    mkdirSync(pkg, { recursive: true });
    cpSync(join(root, 'bin'), join(pkg, 'bin'), { recursive: true });
    for (const f of ['out', 'package.json', 'resources', 'sandbox-images', 'node_modules'])
      symlinkSync(join(root, f), join(pkg, f));
  }
  return join(pkg, 'bin', 'start.mjs');
}

describe('bin/start.mjs, installed (the bundle): the paths before main load no part of main', () => {
  it('validate FILE of a new script, kit list, tools, sandboxes and helps from the cache, a cached image build: never out/cli/main.js', () => {
    const start = installedStart();
    const mainChunk = (urls: string[]) => urls.filter((u) => u.endsWith('/out/cli/main.js'));
    const run = (args: string[]) => loads('', args, start, { XDG_CACHE_HOME: join(dir, 'cache-installed') });
    run(['--workspace', ws, 'sandboxes']); // the snapshot of this build, written by main if missing
    const cases = [
      ['--workspace', ws, 'kit', 'list', '--json'],
      ['--workspace', ws, 'tools', '--sandbox', 'ecommerce', '--format', 'json'],
      ['--workspace', ws, 'prompt', '--task', 'email of user u1'],
      ['--workspace', ws, 'sandboxes'],
      ['--help'],
      ['help', 'kit'],
      ['image', 'build'],
    ];
    for (const args of cases) run(args); // main's answers, kept in the verb cache
    for (const args of cases) {
      const r = run(args);
      expect(r.out.length, args.join(' ')).toBeGreaterThan(0);
      expect(mainChunk(r.urls), args.join(' ')).toEqual([]);
    }
    // A script new to the verb cache: checked before main, with the bundle's own pyright, in the Python
    // validator's script (out/cli/validator-python.cjs, run by cli/validator-bundle.ts with its code
    // cache), not the modules of pyright and the validator that main's other verbs import.
    const fresh = join(ws, 'installed-fresh.py');
    writeFileSync(fresh, `# ${Date.now()}\nr = get_user(user_id="u1")\nemit_result(r.data)\n`);
    const r = run(['--workspace', ws, 'validate', fresh, '--sandbox', 'ecommerce']);
    expect(r.out).toBe(`${fresh}: valid (python)\n`);
    const holding = (text: string) =>
      r.urls.filter((u) => u.includes('/out/cli/') && readFileSync(new URL(u), 'utf8').includes(text));
    expect(holding('function loadCliValidator(')).toHaveLength(1);
    expect(holding('function validatePython(')).toEqual([]);
    expect(holding('var require_parser=')).toEqual([]);
    expect(mainChunk(r.urls)).toEqual([]);
  });
});

/**
 * What `runs list` and `template list` must not load once the config's digest is kept (cli/store-verbs.ts):
 * main (commander, every verb's table), zod with the config's and the records' schemas, the LLM clients,
 * and (no template to check: the sample workspace has no templates folder) pyright's and Babel's parsers.
 * Each cost ~7-35 ms of CPU of a ~300 ms start (docs/scaling.md, issue 29).
 */
const STORE_VERBS_HEAVY = [
  'src-main/cli/main.ts',
  'node_modules/commander/',
  'node_modules/zod/',
  'src-main/app/config.ts',
  'src-main/core/records/schemas.ts',
  'src-main/infra/llm/',
  'node_modules/@zzzen/pyright-internal/',
  'node_modules/@babel/',
];

describe.each([
  ['sources', () => join(root, 'bin/start.mjs'), ENTRIES.sources],
  ['bundle', installedStart, ENTRIES.bundle],
] as const)('bin/start.mjs: runs list and template list before main (%s)', (kind, startOf, mainEntry) => {
  it('answer as main does (after main kept the config digest), loading neither main, zod, the config and records schemas, the LLM clients nor the parsers', () => {
    const w = tempWorkspace(`toolsmith-start-imports-store-${kind}-`);
    try {
      // A recorded run, imported through main (the service's path), and a config that warns.
      const imported = loads(ENTRIES.sources, [
        '--workspace',
        w,
        'runs',
        'import',
        join(root, 'test/fixtures/runs/run-v1.json'),
      ]);
      expect(imported.out).toMatch(/^imported run /m);
      appendFileSync(join(w, '.toolsmith/config.toml'), '\n[approval]\nkits = ["ordrs"]\n');
      const start = startOf();
      const cache = { XDG_CACHE_HOME: join(dir, `cache-store-verbs-${kind}`) };
      for (const args of [
        ['--workspace', w, 'runs', 'list'],
        ['--workspace', w, 'runs', 'list', '--json', '--kind', 'all', '--limit', '5', '--count'],
        ['--workspace', w, 'template', 'list'],
        ['--workspace', w, 'template', 'list', '--json'],
      ]) {
        // main's own answer (the config parsed, its digest kept), then bin/start.mjs's
        const full = loads(mainEntry, args, undefined, cache);
        expect([...modulesLoaded(full)]).toContain('src-main/cli/main.ts');
        const r = loads('', args, start, cache);
        expect(r.out, args.join(' ')).toBe(full.out);
        expect(r.err, args.join(' ')).toBe(full.err);
        expect(r.err).toMatch(/^toolsmith: warning: .*approval\.kits names no kit "ordrs"/m);
        if (args[3] === 'list' && args[2] === 'runs') expect(r.out).toContain('6f1c2a9e');
        const mods = [...modulesLoaded(r)];
        expect(
          STORE_VERBS_HEAVY.filter((h) => mods.some((m) => m.startsWith(h))),
          args.join(' '),
        ).toEqual([]);
        expect(mods).toContain('src-main/cli/store-verbs.ts');
        // (nor node:fs's `promises` nor node:crypto's webcrypto, which an ES import of the builtin loads:
        // the store's modules, the sweep's installation id and the log file's take them by
        // process.getBuiltinModule)
        expect(eager(r), args.join(' ')).toEqual([]);
      }
    } finally {
      removeWorkspace(w);
    }
  }, 120_000);
});

/**
 * Nor node:crypto (~18 of Node's own modules, ~12-15 ms of CPU) once the workspace's files have settled:
 * the digest's key is given from its memo (verb-cache.ts `memoizedKey`), the verbs file named by FNV-1a
 * of the path (key-parts.ts `pathNameHash`), a set secret's value hashed by the SHA-256 in JS. test/unit/cli/key-memo.test.ts shows that any change hashes again.
 */
describe.each([
  ['sources', () => join(root, 'bin/start.mjs'), ENTRIES.sources],
  ['bundle', installedStart, ENTRIES.bundle],
] as const)(
  'bin/start.mjs: runs list and template list of a settled workspace (%s)',
  (kind, startOf, mainEntry) => {
    it('answer as main does without loading node:crypto', async () => {
      const w = tempWorkspace(`toolsmith-start-imports-settled-${kind}-`);
      try {
        await new Promise((r) => setTimeout(r, SETTLE_MS + 500));
        const start = startOf();
        const cache = { XDG_CACHE_HOME: join(dir, `cache-settled-${kind}`) };
        for (const args of [
          ['--workspace', w, 'runs', 'list'],
          ['--workspace', w, 'template', 'list', '--json'],
        ]) {
          const full = loads(mainEntry, args, undefined, cache);
          expect([...modulesLoaded(full)]).toContain('src-main/cli/main.ts');
          for (let i = 0; i < 2; i++) {
            const r = loads('', args, start, cache);
            expect(r.out, args.join(' ')).toBe(full.out);
            expect(r.err, args.join(' ')).toBe(full.err);
            expect([...modulesLoaded(r)]).toContain('src-main/cli/store-verbs.ts');
            expect(
              r.internal.filter((m) => m.includes('crypto')),
              args.join(' '),
            ).toEqual([]);
            // Nor the SHA-256 in JS while no variable the config names is set: the verbs file is named
            // by a hash of the path (key-parts.ts `pathNameHash`) and nothing else is hashed.
            expect([...modulesLoaded(r)].filter((m) => /sha256-js|@noble\/hashes/.test(m))).toEqual([]);
            // The bundle's chunks it loads: the verb cache's entry, the error words, the verbs' own chunk,
            // the store's, the bundler's runtime and the clock (13 before they were grouped:
            // scripts/build-cli.mjs; each chunk loaded apart costs ~1 ms of CPU).
            if (kind === 'bundle')
              expect(
                r.urls.filter((u) => u.includes('/out/cli/')).length,
                args.join(' '),
              ).toBeLessThanOrEqual(6);
          }
          // With a variable the config names set (the sample's `env:TOOLSMITH_SHOP_TOKEN`), the digest
          // key's signature holds its SHA-256: in JS, still no node:crypto, and the same answer.
          const secret = { ...cache, TOOLSMITH_SHOP_TOKEN: 'tok-settled-123' };
          const full2 = loads(mainEntry, args, undefined, secret);
          for (let i = 0; i < 2; i++) {
            const r = loads('', args, start, secret);
            expect(r.out, args.join(' ')).toBe(full2.out);
            expect(r.err, args.join(' ')).toBe(full2.err);
            expect([...modulesLoaded(r)]).toContain('src-main/cli/store-verbs.ts');
            expect([...modulesLoaded(r)].some((m) => /sha256-js|@noble\/hashes/.test(m))).toBe(true);
            expect(r.internal.filter((m) => m.includes('crypto'))).toEqual([]);
          }
        }
      } finally {
        removeWorkspace(w);
      }
    }, 120_000);
  },
);

/**
 * What `pool status` must not load once main kept its digest (cli/pool-status-early.ts), with the engine
 * answering: main (commander, every verb's table), the service's graph and the config's zod schemas, the
 * sandbox factory with Docker's client (~1 MB of the bundle), the LLM clients and the parsers: ~480 ms
 * of loading of a ~700 ms verb (docs/scaling.md, issue 29). Nor node:fs's `promises` or webcrypto, which
 * ES imports of those builtins load (EAGER).
 */
const POOL_STATUS_HEAVY = [
  'src-main/cli/main.ts',
  'node_modules/commander/',
  'node_modules/zod/',
  'node_modules/dockerode/',
  'node_modules/docker-modem/',
  'src-main/app/service.ts',
  'src-main/app/sandbox-factory.ts',
  'src-main/app/config.ts',
  'src-main/infra/sandbox/docker.ts',
  'src-main/infra/llm/',
  'node_modules/@zzzen/pyright-internal/',
  'node_modules/@babel/',
];

describe.each([
  ['sources', () => join(root, 'bin/start.mjs'), ENTRIES.sources],
  ['bundle', installedStart, ENTRIES.bundle],
] as const)('bin/start.mjs: pool status before main (%s)', (kind, startOf, mainEntry) => {
  it("answers as main does (after main kept its digest), loading neither main, the service, the config schemas nor Docker's client", () => {
    const w = tempWorkspace(`toolsmith-start-imports-pool-${kind}-`);
    try {
      appendFileSync(join(w, '.toolsmith/config.toml'), '\n[approval]\nkits = ["ordrs"]\n');
      const start = startOf();
      const cache = { XDG_CACHE_HOME: join(dir, `cache-pool-status-${kind}`) };
      for (const args of [
        ['--workspace', w, 'pool', 'status'],
        ['--workspace', w, 'pool', 'status', '--json'],
      ]) {
        const full = loads(mainEntry, args, undefined, cache);
        expect([...modulesLoaded(full)]).toContain('src-main/app/sandbox-factory.ts');
        const r = loads('', args, start, cache);
        expect(r.out, args.join(' ')).toBe(full.out);
        expect(r.err, args.join(' ')).toBe(full.err);
        expect(r.err).toMatch(/^toolsmith: warning: .*approval\.kits names no kit "ordrs"/m);
        expect(r.out).toMatch(/"available": true|^docker: engine /m);
        const mods = [...modulesLoaded(r)];
        expect(
          POOL_STATUS_HEAVY.filter((h) => mods.some((m) => m.startsWith(h))),
          args.join(' '),
        ).toEqual([]);
        expect(dockerodeLoaded(r)).toBe(false);
        expect(mods).toContain('src-main/cli/pool-status-early.ts');
        expect(eager(r), args.join(' ')).toEqual([]);
      }
    } finally {
      removeWorkspace(w);
    }
  }, 180_000);
});

/**
 * Nor node:crypto once the workspace and the install have settled: the config digest's key from its memo
 * (verb-cache.ts `memoizedKey`), the cache files named by a SHA-256 in JS, the image tags from their memo
 * (cli/image-tag-memo.ts: images.ts hashed the worker's files and the built C loop with node:crypto at
 * every start, and loaded it at its own load). test/unit/cli/image-tag-memo.test.ts shows that the memo
 * gives imageTag's tag and sees any change.
 */
describe.each([
  ['sources', () => join(root, 'bin/start.mjs'), ENTRIES.sources],
  ['bundle', installedStart, ENTRIES.bundle],
] as const)('bin/start.mjs: pool status of a settled workspace (%s)', (kind, startOf, mainEntry) => {
  it('answers as main does without loading node:crypto', async () => {
    const w = tempWorkspace(`toolsmith-start-imports-pool-settled-${kind}-`);
    try {
      await new Promise((r) => setTimeout(r, SETTLE_MS + 500));
      const start = startOf();
      const cache = { XDG_CACHE_HOME: join(dir, `cache-pool-settled-${kind}`) };
      for (const args of [
        ['--workspace', w, 'pool', 'status'],
        ['--workspace', w, 'pool', 'status', '--json'],
      ]) {
        const full = loads(mainEntry, args, undefined, cache);
        expect([...modulesLoaded(full)]).toContain('src-main/app/sandbox-factory.ts');
        // (the first start before main keeps the memos, the next ones take them)
        for (let i = 0; i < 3; i++) {
          const r = loads('', args, start, cache);
          expect(r.out, args.join(' ')).toBe(full.out);
          expect(r.err, args.join(' ')).toBe(full.err);
          expect(r.out).toMatch(/"available": true|^docker: engine /m);
          expect([...modulesLoaded(r)]).toContain('src-main/cli/pool-status-early.ts');
          if (i > 0)
            expect(
              r.internal.filter((m) => m.includes('crypto')),
              `${args.join(' ')} (start ${i + 1})`,
            ).toEqual([]);
        }
      }
    } finally {
      removeWorkspace(w);
    }
  }, 180_000);
});

describe("the bundle's pyright (its English strings only)", () => {
  it('gives the syntax errors the sources give, in English under a German locale', () => {
    // (a script shows its first syntax error only: one script per message)
    const scripts: [string, RegExp][] = [
      ['if True\n    emit_result(1)\n', /^FILE:1:8: syntax: syntax error: Expected ":"$/m],
      ['emit_result(1)\nx = (\n', /^FILE:2:5: syntax: syntax error: "\(" was not closed$/m],
      ['def f(:\n    pass\n', /^FILE:1:7: syntax: syntax error: Expected parameter name$/m],
      ['z = 1 +\nemit_result(z)\n', /^FILE:1:8: syntax: syntax error: Expected expression$/m],
    ];
    scripts.forEach(([code, expected], i) => {
      const answer = (kind: keyof typeof ENTRIES) => {
        // A script per kind: the verb cache would answer the second from the first.
        const script = join(ws, `syntax-${i}-${kind}.py`);
        writeFileSync(script, code);
        const r = spawnSync(
          node,
          [join(dir, 'run.mjs'), '--workspace', ws, 'validate', script, '--tools', 'get_user'],
          { env: { ...env, ENTRY: ENTRIES[kind], LC_ALL: 'de' }, encoding: 'utf8' },
        );
        expect(r.status, r.stderr).toBe(1);
        return r.stdout.replaceAll(script, 'FILE');
      };
      const sources = answer('sources');
      expect(sources).toMatch(expected);
      expect(sources).toMatch(/^1 violation$/m);
      expect(answer('bundle')).toBe(sources);
    });
  });
});

/** The corpus's scripts of a language, whole and cut in half (syntax errors), plain and strict. */
function corpusCases(language: 'python' | 'js'): { code: string; strict: boolean }[] {
  const corpus = join(root, 'test/fixtures/corpus', language);
  const scripts = ['attack', 'benign'].flatMap((sub) =>
    readdirSync(join(corpus, sub)).map((f) => readFileSync(join(corpus, sub, f), 'utf8')),
  );
  return scripts.flatMap((code) => [
    { code, strict: false },
    { code, strict: true },
    { code: code.slice(0, Math.floor(code.length / 2)), strict: false },
  ]);
}

/**
 * The bundle's validator of `language` as `validate FILE` loads it (cli/validator-bundle.ts: the
 * language's script in out/cli with V8's code cache in `codeCache`), on `cases`, in a fresh Node.
 */
function bundleResults(
  language: 'python' | 'js',
  cases: { code: string; strict: boolean }[],
  codeCache: string,
): unknown[] {
  writeFileSync(join(dir, `cases-${language}.json`), JSON.stringify(cases));
  writeFileSync(
    join(dir, 'bundle-validate.mjs'),
    `import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const out = process.env.OUT_CLI;
const chunk = readdirSync(out).find((f) => f.endsWith('.js') && readFileSync(join(out, f), 'utf8').includes('function loadCliValidator('));
const mod = await import(join(out, chunk));
const load = Object.values(mod).find((f) => f.name === 'loadCliValidator');
const validate = await load(process.env.LANGUAGE);
const cases = JSON.parse(readFileSync(process.env.CASES, 'utf8'));
process.stdout.write(JSON.stringify(cases.map((c) => validate(c.code, { tools: ['get_user', 'search'], strict: c.strict }))));
`,
  );
  const r = spawnSync(node, [join(dir, 'bundle-validate.mjs')], {
    env: {
      ...env,
      OUT_CLI: join(root, 'out/cli'),
      CASES: join(dir, `cases-${language}.json`),
      NODE_COMPILE_CACHE: codeCache,
      LANGUAGE: language,
      LC_ALL: 'de',
    },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as unknown[];
}

/** The code cache files of the bundle's validators in a compile cache folder (any V8 version's). */
const codeCacheFiles = (cache: string): string[] =>
  existsSync(cache)
    ? readdirSync(cache, { recursive: true, encoding: 'utf8' }).filter((f) =>
        /validator-\w+-[0-9a-f]+\.v8$/.test(f),
      )
    : [];

describe("the bundle's validator", () => {
  it("gives the sources' results on the Python corpus, whole and cut in half (syntax errors), plain and strict, without its code cache and with it", async () => {
    const cases = corpusCases('python');
    const codeCache = join(dir, 'code-cache-python');
    const first = bundleResults('python', cases, codeCache);
    expect(codeCacheFiles(codeCache)).toHaveLength(1); // (made after the first run)
    const second = bundleResults('python', cases, codeCache);
    const { validatePython } = await import('../../../src-main/core/lang/python/validate.ts');
    const fromSources = cases.map((c) =>
      validatePython(c.code, { tools: ['get_user', 'search'], strict: c.strict }),
    );
    expect(first).toHaveLength(cases.length);
    expect(fromSources.filter((v) => v.violations.some((x) => x.rule === 'syntax')).length).toBeGreaterThan(
      20,
    );
    expect(first).toEqual(fromSources);
    expect(second).toEqual(fromSources);
  }, 120_000);

  it("gives the sources' results on the JS corpus, without its code cache and with it", async () => {
    const cases = corpusCases('js');
    const codeCache = join(dir, 'code-cache-js');
    const first = bundleResults('js', cases, codeCache);
    expect(codeCacheFiles(codeCache)).toHaveLength(1);
    const second = bundleResults('js', cases, codeCache);
    const { validateJs } = await import('../../../src-main/core/lang/js/validate.ts');
    const fromSources = cases.map((c) =>
      validateJs(c.code, { tools: ['get_user', 'search'], strict: c.strict }),
    );
    expect(fromSources.filter((v) => !v.valid).length).toBeGreaterThan(20);
    expect(first).toEqual(fromSources);
    expect(second).toEqual(fromSources);
  }, 120_000);
});

describe("bin/start.mjs, installed: the validator's code cache", () => {
  it('is made after the first validate, used as it is after, made again when damaged, and never used for another build of the validator', () => {
    // An installed package of its own: bin/ and out/cli copied (this test edits the validator's script).
    const pkg = join(dir, 'installed-copy', 'node_modules', 'toolsmith-workbench');
    mkdirSync(pkg, { recursive: true });
    cpSync(join(root, 'bin'), join(pkg, 'bin'), { recursive: true });
    cpSync(join(root, 'out/cli'), join(pkg, 'out/cli'), { recursive: true });
    for (const f of ['package.json', 'resources', 'sandbox-images', 'node_modules'])
      symlinkSync(join(root, f), join(pkg, f));
    const cacheHome = join(dir, 'cache-code');
    const codeCache = join(dir, 'code-cache-installed'); // (Node's compile cache: $NODE_COMPILE_CACHE)
    const validate = (code: string) => {
      const script = join(ws, `code-cache-${Date.now()}-${Math.random()}.py`);
      writeFileSync(script, code);
      const r = spawnSync(
        node,
        [join(pkg, 'bin/start.mjs'), '--workspace', ws, 'validate', script, '--sandbox', 'ecommerce'],
        { env: { ...env, XDG_CACHE_HOME: cacheHome, NODE_COMPILE_CACHE: codeCache }, encoding: 'utf8' },
      );
      return { status: r.status, out: r.stdout.replaceAll(script, 'FILE'), err: r.stderr };
    };
    const bad = 'import os\nr = get_user(user_id="u1")\nemit_result(r.data)\n';
    validate('emit_result(1)\n'); // (main's path, once: the sandboxes snapshot of this build)
    const first = validate(bad);
    expect(first.status, first.err).toBe(1);
    expect(first.out).toMatch(/^FILE:1:1: no-import: imports are not available; /m);
    const files = codeCacheFiles(codeCache);
    expect(files).toHaveLength(1);
    const file = join(codeCache, files[0]!);
    const made = readFileSync(file);
    // Used as it is: a second new script reads it and writes nothing.
    const second = validate(bad);
    expect(second.out).toBe(first.out);
    expect(readFileSync(file).equals(made)).toBe(true);
    // Damaged (a byte of the code changed): never given to V8; the answer is the same and the cache made again.
    const damaged = Buffer.from(made);
    damaged[damaged.length - 100] = damaged[damaged.length - 100]! ^ 0xff;
    writeFileSync(file, damaged);
    const third = validate(bad);
    expect(third.out).toBe(first.out);
    expect(readFileSync(file).equals(damaged)).toBe(false);
    expect(codeCacheFiles(codeCache)).toEqual(files);
    // Another build of the validator, the same length (V8 checks only that): its own code runs, not the
    // cached code of the build before, whose cache is removed once the new one is made.
    const py = join(pkg, 'out/cli/validator-python.cjs');
    const source = readFileSync(py, 'utf8');
    expect(source).toContain('imports are not available');
    writeFileSync(py, source.replaceAll('imports are not available', 'imports are NOT available'));
    const edited = validate(bad);
    expect(edited.out).toMatch(/^FILE:1:1: no-import: imports are NOT available; /m);
    const now = codeCacheFiles(codeCache);
    // (the build before keeps its cache: one of the KEEP_BUILDS most recently used)
    expect(now).toHaveLength(2);
    expect(now).toEqual(expect.arrayContaining(files));
  }, 120_000);
});

/**
 * An installed package of its own under `name` (bin/ and out/cli copied); `mark` appended to the Python
 * validator's script makes it another build (another version of the CLI).
 */
function installedCopy(name: string, mark?: string): string {
  const pkg = join(dir, name, 'node_modules', 'toolsmith-workbench');
  mkdirSync(pkg, { recursive: true });
  cpSync(join(root, 'bin'), join(pkg, 'bin'), { recursive: true });
  cpSync(join(root, 'out/cli'), join(pkg, 'out/cli'), { recursive: true });
  for (const f of ['package.json', 'resources', 'sandbox-images', 'node_modules'])
    symlinkSync(join(root, f), join(pkg, f));
  if (mark) appendFileSync(join(pkg, 'out/cli/validator-python.cjs'), `\n// ${mark}\n`);
  return pkg;
}

/** `validate` of a new script by the installed copy `pkg`, Node's compile cache in `codeCache`. */
function validateWith(pkg: string, codeCache: string, code: string) {
  const script = join(ws, `code-cache-${Date.now()}-${Math.random()}.py`);
  writeFileSync(script, code);
  const r = spawnSync(
    node,
    [join(pkg, 'bin/start.mjs'), '--workspace', ws, 'validate', script, '--sandbox', 'ecommerce'],
    {
      env: { ...env, XDG_CACHE_HOME: join(pkg, '..', '..', 'cache'), NODE_COMPILE_CACHE: codeCache },
      encoding: 'utf8',
    },
  );
  return { status: r.status, out: r.stdout.replaceAll(script, 'FILE'), err: r.stderr };
}

const BAD = 'import os\nr = get_user(user_id="u1")\nemit_result(r.data)\n';

describe("bin/start.mjs, installed: the validator's code cache kept in order", () => {
  it('a write killed midway: no part of a cache is used, and its old temporary files go at the next start that makes the cache (only those)', () => {
    const pkg = installedCopy('installed-tmp');
    const codeCache = join(dir, 'code-cache-tmp');
    validateWith(pkg, codeCache, 'emit_result(1)\n'); // (main's path, once: this build's snapshot)
    const first = validateWith(pkg, codeCache, BAD);
    expect(first.status, first.err).toBe(1);
    const [made] = codeCacheFiles(codeCache);
    const file = join(codeCache, made!);
    const bytes = readFileSync(file);
    const folder = join(file, '..');
    const name = made!.split('/').at(-1)!;
    // Killed after writing half of its temporary file (the cache's own removed first: a run killed
    // before its rename made none; rerun at once), beside an old one of an older version of the CLI (pid
    // only, a pid in use again), one of a write on its way in a live process, and files that are not the
    // cache's.
    rmSync(file);
    const hour = new Date(Date.now() - 3_600_000);
    const plant = (f: string, data: Buffer | string, old: boolean) => {
      writeFileSync(join(folder, f), data);
      if (old) utimesSync(join(folder, f), hour, hour);
      return f;
    };
    // (a pid no process has: its writer is gone, however new the file; this one's: a write on its way)
    let gone = 400_000;
    while (existsSync(`/proc/${gone}`)) gone++;
    const stale = [
      plant(`${name}.${gone}-0a1b2c3d.tmp`, bytes.subarray(0, bytes.length >> 1), false),
      plant(`${name}.${process.pid}.tmp`, bytes.subarray(0, 100), true),
    ];
    const kept = [
      plant(`${name}.${process.pid}-deadbeef.tmp`, bytes.subarray(0, 10), false),
      plant('notes.tmp', "not the cache's", true),
      plant(`${name}.tmp.bak`, "not the cache's either", true),
    ];
    const again = validateWith(pkg, codeCache, BAD);
    expect(again.out).toBe(first.out);
    const left = readdirSync(folder);
    for (const f of stale) expect(left, f).not.toContain(f);
    for (const f of kept) expect(left, f).toContain(f);
    expect(left).toContain(name);
    // A cache file cut short under its name (a crash after the rename, before the data reached the
    // disk): never given to V8; the same answer, and a whole cache in its place.
    writeFileSync(file, bytes.subarray(0, bytes.length >> 1));
    const cut = validateWith(pkg, codeCache, BAD);
    expect(cut.out).toBe(first.out);
    expect(readFileSync(file).length).toBeGreaterThan(bytes.length >> 1);
  }, 180_000);

  it('two installed versions used in turn keep their own caches; past three builds the least recently used goes', () => {
    const codeCache = join(dir, 'code-cache-versions');
    const builds = ['a', 'b', 'c', 'd'].map((v) => installedCopy(`installed-${v}`, `build ${v}`));
    const cacheOf: string[] = [];
    /** The first validations of a build: its cache made, the new file its cache. */
    const first = (i: number) => {
      const before = new Set(codeCacheFiles(codeCache));
      validateWith(builds[i]!, codeCache, 'emit_result(1)\n');
      const r = validateWith(builds[i]!, codeCache, BAD);
      expect(r.status, r.err).toBe(1);
      const made = codeCacheFiles(codeCache).filter((f) => !before.has(f));
      expect(made, `build ${i}`).toHaveLength(1);
      cacheOf[i] = made[0]!;
    };
    const inode = (i: number) => statSync(join(codeCache, cacheOf[i]!)).ino;
    first(0);
    first(1);
    // Both kept (before, each build kept only its own: the other's was removed and made again).
    expect(codeCacheFiles(codeCache).sort()).toEqual([cacheOf[0], cacheOf[1]].sort());
    const a = inode(0);
    const b = inode(1);
    for (const i of [0, 1, 0, 1]) validateWith(builds[i]!, codeCache, BAD);
    expect([inode(0), inode(1)]).toEqual([a, b]); // (used, never written again)
    first(2);
    // b used last of the three before d: it is the one that goes.
    validateWith(builds[0]!, codeCache, BAD);
    validateWith(builds[2]!, codeCache, BAD);
    first(3);
    expect(codeCacheFiles(codeCache).sort()).toEqual([cacheOf[0], cacheOf[2], cacheOf[3]].sort());
  }, 300_000);
});

/**
 * `init [DIR] --empty` before main loads (src-main/cli/init-early.ts): neither main (commander, every verb's
 * table) nor node:crypto (~20 modules of Node's own, which the verb cache's module loads only to hash),
 * nor the builtins' namespaces an ES import builds (docs/scaling.md, issue 29).
 */
describe.each([
  ['sources', () => join(root, 'bin/start.mjs')],
  ['bundle', installedStart],
] as const)('bin/start.mjs: init --empty before main (%s)', (kind, startOf) => {
  it('makes the workspace loading neither main, commander nor node:crypto', () => {
    const start = startOf();
    const target = join(dir, `init-early-${kind}`);
    const r = loads('', ['init', target, '--empty', '--name', 'early'], start);
    expect(r.out).toMatch(/^created workspace .* \(empty skeleton\)$/m);
    expect(readFileSync(join(target, '.toolsmith', 'config.toml'), 'utf8')).toContain('name = "early"');
    const mods = [...modulesLoaded(r)];
    expect(mods).toContain('src-main/cli/init-early.ts');
    expect(mods.filter((m) => m === 'src-main/cli/main.ts' || m.startsWith('node_modules/'))).toEqual([]);
    expect(r.internal.filter((m) => m === 'NativeModule crypto')).toEqual([]);
    expect(eager(r)).toEqual([]);
  }, 120_000);
});
