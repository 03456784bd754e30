/**
 * The installed command, as a user gets it: the packed tarball (`npm pack`, whose prepack builds the
 * CLI bundle and the renderer) installed into a temporary prefix with the machine's Node 20
 * (/usr/bin/node) first on PATH and no Node 24 anywhere on it. The launcher (a POSIX sh script) must
 * exec the Node 24 the package ships without starting the machine's Node, the command must run the
 * bundle (out/cli) rather than the TypeScript sources, and `serve` must serve the packed workbench.
 * No npx anywhere.
 */
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { packCheckout } from '../../support/built-once.ts';
import { startOtlpReceiver } from '../../support/otlp-receiver.ts';
import { runCommand } from '../../support/toolsmith-process.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const machineNode = '/usr/bin/node';
let prefix: string;
let toolsmith: string;
let env: NodeJS.ProcessEnv;
let pkg: string;
/** What `npm install -g` of the tarball printed at its default warning level. */
let installWarnings = '';

beforeAll(() => {
  const v = spawnSync(machineNode, ['--version'], { encoding: 'utf8' });
  if (v.status !== 0 || !/^v2[0-3]\./.test(v.stdout))
    throw new Error(
      `this test needs the machine's Node 20-23 at ${machineNode} (Debian's nodejs); got ${v.stdout}`,
    );
  prefix = mkdtempSync(join(tmpdir(), 'toolsmith-install-'));
  // Packed once before the run's files start (test/support/built-once.ts), else here.
  const tarball = inject('packedTarball') ?? packCheckout(prefix);
  // The machine's Node and npm only: PATH holds no node_modules/.bin.
  env = {
    ...process.env,
    PATH: `${join(prefix, 'bin')}:/usr/bin:/bin`,
    XDG_CACHE_HOME: join(prefix, 'cache'),
    TOOLSMITH_HOME: join(prefix, 'home'),
    NODE_COMPILE_CACHE: join(prefix, 'compile-cache'),
  };
  const r = spawnSync(
    'npm',
    [
      'install',
      '-g',
      '--prefix',
      prefix,
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=warn',
      tarball,
    ],
    { cwd: prefix, env, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`npm install -g of the tarball failed: ${r.stderr}`);
  installWarnings = r.stderr;
  toolsmith = join(prefix, 'bin', 'toolsmith');
  pkg = join(prefix, 'lib', 'node_modules', 'toolsmith-workbench');
}, 600_000);

afterAll(() => {
  if (prefix) rmSync(prefix, { recursive: true, force: true });
});

function run(args: string[], cwd: string = prefix) {
  return spawnSync(toolsmith, args, { cwd, env, encoding: 'utf8' });
}

describe('toolsmith installed from the packed tarball', () => {
  it('installs without a warning: no dependency to fetch, no install script left unrun', () => {
    // The packed package.json lists no dependencies (scripts/packed-manifest.mjs): everything the
    // command imports is in its bundle. Before, protobufjs, ssh2 and cpu-features asked to run install
    // scripts, and packages wanting Node >= 22 warned under the machine's Node 20 running npm.
    expect(installWarnings).not.toMatch(/install-scripts|EBADENGINE/);
    expect(installWarnings.trim()).toBe('');
    const packed = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(packed['dependencies']).toBeUndefined();
    expect(packed['devDependencies']).toBeUndefined();
    // Only the shipped Node came along.
    const installed = existsSync(join(pkg, 'node_modules')) ? readdirSync(join(pkg, 'node_modules')) : [];
    expect(installed.filter((d) => !d.startsWith('.') && !/^node-(linux|win|darwin)-/.test(d))).toEqual([]);
    // The clone's own package.json is back as it was (postpack).
    const clone = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(clone['dependencies']).toHaveProperty('dockerode');
    expect(existsSync(join(root, '.package.json.unpacked'))).toBe(false);
  });

  it('is a command on PATH whose package sits under node_modules, with Node 20 first on PATH', () => {
    const which = spawnSync('sh', ['-c', 'command -v toolsmith; command -v node; node --version'], {
      env,
      encoding: 'utf8',
    });
    const [cmd, node, version] = which.stdout.trim().split('\n');
    expect(cmd).toBe(toolsmith);
    expect(node).toBe(machineNode);
    expect(version).toMatch(/^v20\./);
    expect(realpathSync(toolsmith)).toContain(`${join('node_modules', 'toolsmith-workbench', 'bin')}`);
  });

  it("execs the Node 24 it ships directly: the machine's `node` never starts", () => {
    // A `node` first on PATH that leaves a mark and fails: the old launcher (`#!/usr/bin/env node`)
    // started it before the shipped Node 24, at the cost of a whole Node start.
    const fake = join(prefix, 'fake-node');
    mkdirSync(fake, { recursive: true });
    const mark = join(fake, 'started');
    writeFileSync(join(fake, 'node'), `#!/bin/sh\ntouch ${JSON.stringify(mark)}\nexit 97\n`);
    chmodSync(join(fake, 'node'), 0o755);
    const r = spawnSync(toolsmith, ['--version'], {
      cwd: prefix,
      env: { ...env, PATH: `${join(prefix, 'bin')}:${fake}:/usr/bin:/bin` },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(
      (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version,
    );
    expect(existsSync(mark)).toBe(false);
  });

  it('--help lists the verbs', () => {
    const r = run(['--help']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: toolsmith');
    expect(r.stdout).toMatch(/\n {2}validate \[options\] <file>/);
  });

  it('init, then validate FILE and sandboxes in the new workspace (full path, then from the snapshot)', () => {
    const ws = join(prefix, 'my-tools');
    const init = run(['init', ws]);
    expect(init.stderr).toBe('');
    expect(init.status).toBe(0);
    // The hint names this command as it is on PATH, never a bare `npx toolsmith`.
    expect(init.stdout).toContain(`&& toolsmith sandboxes`);
    expect(init.stdout).not.toMatch(/npx/);

    const good = join(ws, 'good.py');
    writeFileSync(good, 'r = get_user(user_id="u1")\nemit_result(r.data)\n');
    const bad = join(ws, 'bad.py');
    writeFileSync(bad, 'import os\nemit_result(os.getcwd())\n');
    for (let i = 0; i < 2; i++) {
      const ok = run(['validate', 'good.py'], ws);
      expect(ok.stderr).toBe('');
      expect(ok.stdout).toBe('good.py: valid (python)\n');
      expect(ok.status).toBe(0);
      const no = run(['validate', 'bad.py', '--json'], ws);
      expect(no.status).toBe(1);
      expect((JSON.parse(no.stdout) as { violations: { rule: string }[] }).violations[0]?.rule).toBe(
        'no-import',
      );
      const list = run(['sandboxes', '--json'], ws);
      expect(list.stderr).toBe('');
      expect(list.status).toBe(0);
      expect(JSON.parse(list.stdout)).toMatchObject({
        workspace: ws,
        sandboxes: [{ name: 'ecommerce' }, { name: 'support' }],
      });
    }
  });

  it('runs on the Node 24 it ships, with the exit code passed through', () => {
    // node:sqlite exists from Node 22.5; `runs list` opens the run store with it.
    const r = run(['--workspace', join(prefix, 'my-tools'), 'runs', 'list', '--json']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const usage = run(['validate']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/validate: missing FILE/);
    const installed = JSON.parse(
      readFileSync(join(prefix, 'lib', 'node_modules', 'toolsmith-workbench', 'package.json'), 'utf8'),
    ) as { name: string };
    expect(installed.name).toBe('toolsmith-workbench');
  });

  it('its bundled packages work: dockerode runs a script in Docker, protobufjs sends a run as OTLP', async () => {
    const ws = join(prefix, 'my-tools');
    const script = join(ws, 'count.py');
    writeFileSync(script, 'r = get_orders()\nemit_result(len(r.data))\n');
    const exec = run(['exec', '--sandbox', 'ecommerce', 'count.py', '--json'], ws);
    expect(exec.status, exec.stderr).toBe(0);
    expect(JSON.parse(exec.stdout)).toMatchObject({ success: true, isolation: 'docker' });

    const imported = run(['runs', 'import', join(root, 'test/fixtures/runs/run-v1.json')], ws);
    expect(imported.status, imported.stderr).toBe(0);
    const id = /imported run (\S+)/.exec(imported.stdout)?.[1];
    expect(id).toBeDefined();
    const receiver = await startOtlpReceiver();
    try {
      const sent = await runCommand(toolsmith, ['runs', 'export', id!, '--otlp'], {
        cwd: ws,
        env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.base },
        input: '',
      });
      expect(sent.code, sent.err).toBe(0);
      expect(sent.out).toMatch(/as trace [0-9a-f]{32}/);
      expect(receiver.spans.length).toBeGreaterThan(0);
      expect(receiver.spans.some((sp) => sp.attributes['toolsmith.run.id'] === id)).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 300_000);

  it('runs the bundle prepack built, not the TypeScript sources (no type stripping at all)', () => {
    for (const f of [
      'out/cli/main.js',
      'out/cli/validate-thread.js',
      // each language's validator as one script, run with its code cache (src-main/cli/validator-bundle.ts)
      'out/cli/validator-python.cjs',
      'out/cli/validator-js.cjs',
      'out/renderer/index.html',
    ])
      expect(existsSync(join(pkg, f)), f).toBe(true);
    // Every verb above ran; the load hook that strips the sources' types (bin/strip-hook.mjs) keeps
    // what it stripped in XDG_CACHE_HOME/toolsmith/ts-<node version>: it never ran.
    expect(existsSync(join(prefix, 'cache', 'toolsmith'))).toBe(true); // the sandboxes snapshot
    expect(readdirSync(join(prefix, 'cache', 'toolsmith')).filter((f) => f.startsWith('ts-'))).toEqual([]);
    // `validate` above ran the Python validator's script and kept its code cache in Node's compile cache.
    const compiled = readdirSync(join(prefix, 'compile-cache'), { recursive: true, encoding: 'utf8' });
    expect(compiled.filter((f) => /validator-python-[0-9a-f]{32}\.v8$/.test(f))).toHaveLength(1);
  });

  it('serve: the workbench the package carries, served to a browser, stopped by its pid', async () => {
    const ws = join(prefix, 'my-tools');
    const child = spawn(toolsmith, ['serve', '--port', '0'], {
      cwd: ws,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /Toolsmith workbench: (http:\/\/127\.0\.0\.1:\d+\/\S*)/.exec(out);
          if (m) resolve(m[1]!);
        });
        void exited.then((code) => reject(new Error(`serve exited ${code}: ${err}`)));
      });
      expect(err).not.toMatch(/not built|could not build/);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<title>Toolsmith</title>');
      // The page's own script, from the packed renderer build.
      const script = /<script[^>]+src="\.?\/?(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script, html).toBeDefined();
      const js = await fetch(new URL(script!, url));
      expect(js.status).toBe(200);
      expect((await js.text()).length).toBeGreaterThan(1000);
    } finally {
      process.kill(child.pid!, 'SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);
});
