/**
 * Per-sandbox dependencies (docs/sandboxes.md): requirements.txt with a local wheelhouse (no package
 * index answers here), package.json from an npm registry on loopback, the content-hash cache and the
 * errors that name a missing package. Through the real CLI, the service and the Docker engine.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { writeWheel } from '../../support/wheel.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { runCommand, runToolsmith, toolsmithArgv } from '../../support/toolsmith-process.ts';

const docker = new Docker();
const nonce = randomBytes(6).toString('hex');
let ws: string;
const built = new Set<string>();

const cli = (args: string[], env: Record<string, string> = {}) => runToolsmith(ws, args, env);
/** `cli` with the runner's proxy settings left out of the environment (runToolsmith adds them back). */
function cliWithoutProxies(args: string[], env: Record<string, string>) {
  const [cmd, argv] = toolsmithArgv(ws, args);
  return runCommand(cmd, argv, { env: { ...withoutProxies(), ...env } });
}

function sandbox(name: string, tools: string, files: Record<string, string> = {}): string {
  const dir = join(ws, 'sandboxes', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tools.py'), tools);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  appendFileSync(join(ws, '.toolsmith', 'config.toml'), `\n[sandboxes.${name}]\ndescription = "deps test"\n`);
  return dir;
}

const GREET_TOOLS = `import toolsmith_tiny


@tool(grade=(0, 0))
def greet(name: str) -> ToolResponse:
    """Greets with the wheel's module.

    Args:
        name: Who.
    """
    return ToolResponse(success=True, data=toolsmith_tiny.greet(name))
`;
const PLAIN_TOOLS = `@tool(grade=(0, 0))
def noop() -> ToolResponse:
    """Does nothing."""
    return ToolResponse(success=True, data=None)
`;

beforeAll(() => {
  ws = tempWorkspace();
  const dir = sandbox('pydeps', GREET_TOOLS, {
    'requirements.txt': '# the local wheel\ntoolsmith-tiny==0.1.0\n',
  });
  mkdirSync(join(dir, 'wheels'));
  writeWheel(join(dir, 'wheels'), 'toolsmith_tiny', '0.1.0', {
    'toolsmith_tiny/__init__.py': `NONCE = "${nonce}"\n\ndef greet(name):\n    return "hello " + name + " from a wheel"\n`,
  });
  // The same dependencies on another isolation level: its factory runs the derived image too.
  const gdir = sandbox('pydepsgvisor', GREET_TOOLS, {
    'requirements.txt': '# the local wheel\ntoolsmith-tiny==0.1.0\n',
  });
  appendFileSync(join(ws, '.toolsmith', 'config.toml'), 'isolation = "gvisor"\n');
  mkdirSync(join(gdir, 'wheels'));
  writeWheel(join(gdir, 'wheels'), 'toolsmith_tiny', '0.1.0', {
    'toolsmith_tiny/__init__.py': `NONCE = "${nonce}"\n\ndef greet(name):\n    return "hello " + name + " from a wheel"\n`,
  });
  sandbox('pymissing', PLAIN_TOOLS, { 'requirements.txt': `toolsmith-not-here-${nonce}==1.0\n` });
  sandbox('nodedeps', PLAIN_TOOLS, {
    'package.json': JSON.stringify({
      name: 'nodedeps',
      private: true,
      description: nonce,
      dependencies: { [TINY_NPM]: '1.0.0' },
    }),
  });
  sandbox('nodemissing', PLAIN_TOOLS, {
    'package.json': JSON.stringify({
      name: 'nodemissing',
      private: true,
      dependencies: { [`toolsmith-no-such-package-${nonce}`]: '1.0.0' },
    }),
  });
});

afterAll(async () => {
  for (const tag of built)
    await docker
      .getImage(tag)
      .remove({ force: true })
      .catch(() => {});
  if (ws) removeWorkspace(ws);
});

const tagOf = (out: string) => out.trim().split('\n').pop() ?? '';

// The Python and the node cases run at the same time (sandboxes and images of their own); each kind's
// cases one after the other.
describe('python dependencies from a local wheelhouse', { concurrent: true }, () => {
  describe('one case after another', { concurrent: false }, () => {
    it('image build --sandbox installs the wheel offline into a derived image, with progress', async () => {
      const r = await cli(['image', 'build', '--sandbox', 'pydeps']);
      expect(r.err).toMatch(/offline from wheels\//);
      expect(r.err).toMatch(/Successfully installed toolsmith[-_]tiny-0\.1\.0/);
      expect(r.code, r.err).toBe(0);
      const tag = tagOf(r.out);
      expect(tag).toMatch(/^toolsmith\/python-deps:[0-9a-f]{16}$/);
      built.add(tag);
      const info = await docker.getImage(tag).inspect();
      expect(info.Config.User).toBe('65534:65534');
    }, 300_000);

    it('unchanged files: the second build is a cache hit (same image, nothing rebuilt)', async () => {
      const first = await cli(['image', 'build', '--sandbox', 'pydeps']);
      const tag = tagOf(first.out);
      const id = (await docker.getImage(tag).inspect()).Id;
      const again = await cli(['image', 'build', '--sandbox', 'pydeps']);
      expect(again.code).toBe(0);
      expect(tagOf(again.out)).toBe(tag);
      expect(again.err).toMatch(/is up to date/);
      expect(again.err).not.toMatch(/building toolsmith\/python-deps/);
      expect((await docker.getImage(tag).inspect()).Id).toBe(id);
    }, 300_000);

    it('tool code imports the installed package in the sandbox', async () => {
      const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
      try {
        const r = await svc.execution.executeScript({
          sandbox: 'pydeps',
          language: 'python',
          body: 'r = greet(name="Ada")\nemit_result(r.data)\n',
        });
        expect(r.error).toBeUndefined();
        expect(r.data).toBe('hello Ada from a wheel');
      } finally {
        await svc.close();
      }
    }, 300_000);

    it('a sandbox with its own isolation level (gVisor) runs in its derived image too', async () => {
      const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
      try {
        const r = await svc.execution.executeScript({
          sandbox: 'pydepsgvisor',
          language: 'python',
          body: 'r = greet(name="Grace")\nemit_result(r.data)\n',
        });
        expect(r.error).toBeUndefined();
        expect(r.isolation).toBe('gvisor');
        expect(r.data).toBe('hello Grace from a wheel');
      } finally {
        await svc.close();
      }
    }, 300_000);

    it('a package with no wheel and no index: a clear error naming it', async () => {
      const r = await cli(['image', 'build', '--sandbox', 'pymissing']);
      expect(r.code).not.toBe(0);
      expect(r.err).toContain(`"toolsmith-not-here-${nonce}==1.0"`);
      expect(r.err).toMatch(/no package index answers here/);
      expect(r.err).toContain('sandboxes/pymissing/wheels/');
      // The failed build left none of the images it made on the engine: each step's image (its log's
      // " ---> <id>" lines) but the FROM image and those a step took from the cache (" ---> Using
      // cache"), which other images may build on.
      const lines = r.err.split('\n').map((l) => l.trim());
      const made = lines.flatMap((l, i) => {
        const id = /^-{2,3}> ([0-9a-f]{12,64})$/.exec(l)?.[1];
        return id && !/Using cache/.test(lines[i - 1] ?? '') ? [id] : [];
      });
      expect(made.length, r.err).toBeGreaterThanOrEqual(2); // FROM, and the new COPY requirements.txt's at least
      await expect(docker.getImage(made[0] as string).inspect()).resolves.toBeTruthy();
      for (const id of made.slice(1))
        await expect(docker.getImage(id).inspect(), `step image ${id}`).rejects.toThrow(/no such image/i);
      // the same error reaches a script run in that sandbox (the image is built on first use)
      const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
      try {
        const run = await svc.execution.executeScript({
          sandbox: 'pymissing',
          language: 'python',
          body: 'emit_result(1)\n',
        });
        expect(run.exitReason).toBe('infra');
        expect(run.error?.message).toContain(`toolsmith-not-here-${nonce}`);
      } finally {
        await svc.close();
      }
    }, 300_000);
  });
});

describe('node dependencies from an npm registry', { concurrent: true }, () => {
  describe('one case after another', { concurrent: false }, () => {
    it('package.json is installed (no install scripts) into a derived node image, cached by hash', async () => {
      // From a registry on loopback that has the one package (npm_config_registry, as a person's .npmrc
      // would name their registry), never the public one: behind a person's proxy that did not answer
      // (HTTPS_PROXY, which npm honours for loopback too unless NO_PROXY says otherwise), or on a machine
      // with no network, npm never reached registry.npmjs.org and the test failed on the environment. Its
      // own npm cache too: the package is not put in the person's.
      const registry = await tinyRegistry();
      const env = { npm_config_registry: registry.url, npm_config_cache: registry.cache };
      try {
        const r = await cliWithoutProxies(
          ['image', 'build', '--sandbox', 'nodedeps', '--runtime', 'node'],
          env,
        );
        expect(r.code, r.err).toBe(0);
        expect(r.err).toMatch(/--ignore-scripts/);
        expect(registry.served).toContain(`/${TINY_NPM}/-/${TINY_NPM}-1.0.0.tgz`);
        const tag = tagOf(r.out);
        expect(tag).toMatch(/^toolsmith\/node-deps:[0-9a-f]{16}$/);
        built.add(tag);
        // the dependency loads inside the image, with no network
        expect(
          await runNode(tag, `const n = require("${TINY_NPM}"); console.log(n(5), n("x"), n.NONCE)`),
        ).toBe(`true false ${nonce}`);
        const again = await cliWithoutProxies(['image', 'build', '--sandbox', 'nodedeps'], env);
        expect(tagOf(again.out)).toBe(tag);
        expect(again.err).toMatch(/is up to date/);
      } finally {
        await registry.close();
      }
    }, 300_000);

    it('a package the registry does not have: a clear error naming it', async () => {
      // Started from `npm run -s` (or with loglevel=silent in an .npmrc), npm's own errors were silenced
      // too and the error said only "npm install failed": the install keeps npm's errors whatever the
      // caller's npm config says. The registry is one on loopback that has no package (404, as
      // registry.npmjs.org answers): the public one behind a person's proxy, or with no network, is not
      // this test's (with a proxy that did not answer, npm never heard the 404).
      const registry = createHttpServer((req, res) => {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      });
      const port = await new Promise<number>((resolve) =>
        registry.listen(0, '127.0.0.1', () => resolve((registry.address() as AddressInfo).port)),
      );
      const r = await cliWithoutProxies(['image', 'build', '--sandbox', 'nodemissing', '--runtime', 'node'], {
        npm_config_registry: `http://127.0.0.1:${port}/`,
        npm_config_loglevel: 'silent',
      }).finally(() => registry.close());
      expect(r.code).not.toBe(0);
      expect(r.err).toContain(`"toolsmith-no-such-package-${nonce}"`);
      expect(r.err).toMatch(/npm registry does not have/);
    }, 300_000);

    it("behind a proxy that does not answer: the error gives npm's reason and names the proxy", async () => {
      // A company machine's HTTPS_PROXY, here a port nothing listens on (with a user and password in
      // the URL, which the error must not repeat). Before, the error ended with npm's last lines (a
      // closing brace, "A complete log of this run...") and named neither the refused address nor the proxy.
      const port = await closedPort();
      const r = await cliWithoutProxies(['image', 'build', '--sandbox', 'nodemissing', '--runtime', 'node'], {
        HTTPS_PROXY: `http://me:s3cret-${nonce}@127.0.0.1:${port}`,
        npm_config_fetch_retries: '0',
      });
      expect(r.code).not.toBe(0);
      const error = r.err.split('\n').find((l) => /does not answer/.test(l)) ?? r.err;
      expect(error).toContain(`ECONNREFUSED 127.0.0.1:${port}`);
      expect(error).toContain(`127.0.0.1:${port} is the proxy npm goes through, from $HTTPS_PROXY`);
      expect(r.err).not.toContain(`s3cret-${nonce}`);
    }, 300_000);
  });
});

/** The package the loopback registry has (see tinyRegistry). */
const TINY_NPM = 'toolsmith-tiny-number';

/**
 * An npm registry on loopback with one package, TINY_NPM 1.0.0 (a number check that also exports the
 * file's nonce): its packument at /<name> and its tarball, made here with tar, with their integrity.
 * `served` lists the paths npm asked for; `cache` is an empty npm cache folder for the install.
 */
async function tinyRegistry(): Promise<{
  url: string;
  cache: string;
  served: string[];
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'npm-registry-'));
  const pkg = join(dir, 'package');
  mkdirSync(pkg);
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: TINY_NPM, version: '1.0.0', main: 'index.js' }),
  );
  writeFileSync(
    join(pkg, 'index.js'),
    `module.exports = (n) => typeof n === 'number';\nmodule.exports.NONCE = ${JSON.stringify(nonce)};\n`,
  );
  const tgz = join(dir, 'package.tgz');
  execFileSync('tar', ['-czf', tgz, '-C', dir, 'package']);
  const tarball = readFileSync(tgz);
  const tarPath = `/${TINY_NPM}/-/${TINY_NPM}-1.0.0.tgz`;
  const served: string[] = [];
  const server = createHttpServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    served.push(path);
    if (path === tarPath)
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(tarball);
    if (decodeURIComponent(path) !== `/${TINY_NPM}`)
      return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const { port } = server.address() as AddressInfo;
    const version = {
      name: TINY_NPM,
      version: '1.0.0',
      main: 'index.js',
      dist: {
        tarball: `http://127.0.0.1:${port}${tarPath}`,
        shasum: createHash('sha1').update(tarball).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
      },
    };
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ name: TINY_NPM, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } }),
      );
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
  const cache = join(dir, 'npm-cache');
  mkdirSync(cache);
  return {
    url: `http://127.0.0.1:${port}/`,
    cache,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** This process's environment without the runner's proxy settings (and npm's own). */
function withoutProxies(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([v]) => !/^(npm_config_)?(https?|all|no)_?proxy$/i.test(v)),
  );
}

/** A loopback port nothing listens on (one the system gave, then closed). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function runNode(image: string, code: string): Promise<string> {
  const c = await docker.createContainer({
    Image: image,
    Entrypoint: ['/usr/local/bin/node'],
    Cmd: ['-e', code],
    HostConfig: { NetworkMode: 'none', AutoRemove: false },
  });
  try {
    const stream = await c.attach({ stream: true, stdout: true, stderr: true });
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    docker.modem.demuxStream(stream, out, out);
    // The attached stream ends once the container's output is all through (after it exits).
    const ended = new Promise((r) => stream.once('end', r));
    await c.start();
    await c.wait();
    await ended;
    return text.trim();
  } finally {
    await c.remove({ force: true }).catch(() => {});
  }
}
