/**
 * The loopback rule behind a proxy (src-main/infra/net/proxy-env.ts), which every entry of the service
 * applies as it starts: the command (bin/start.mjs; its entries run as processes in
 * test/integration/cli/proxy-loopback.test.ts) and the desktop app (src-main/electron/main.ts, which
 * needs the Electron binary to run: checked here by its source, as the other Electron tests do).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from '@babel/parser';
import { describe, expect, it } from 'vitest';
import { proxyFor, reachLoopbackDirectly } from '../../../src-main/infra/net/proxy-env.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { runCommand, nodeBin } from '../../support/toolsmith-process.ts';
import { repoRoot } from '../../support/workspace.ts';

describe('reachLoopbackDirectly', () => {
  it('adds the loopback names to NO_PROXY and no_proxy when a proxy is set, keeping what they held', () => {
    const env: Record<string, string | undefined> = {
      HTTPS_PROXY: 'http://proxy.corp:3128',
      no_proxy: '.corp.example, intranet',
    };
    reachLoopbackDirectly(env);
    expect(env['NO_PROXY']).toBe('.corp.example,intranet,localhost,127.0.0.1,[::1]');
    expect(env['no_proxy']).toBe(env['NO_PROXY']);
    reachLoopbackDirectly(env);
    expect(env['NO_PROXY']).toBe('.corp.example,intranet,localhost,127.0.0.1,[::1]');
  });
  it('changes nothing without a proxy variable', () => {
    const env: Record<string, string | undefined> = { NO_PROXY: 'x' };
    reachLoopbackDirectly(env);
    expect(env).toEqual({ NO_PROXY: 'x' });
  });
  it('names the proxy a URL goes through as undici chooses it (lower case first, NO_PROXY, https falls back)', () => {
    const env = {
      http_proxy: 'http://u:p@proxy:3128',
      HTTPS_PROXY: 'http://other:8080',
      NO_PROXY: '.local,db:5432',
    };
    expect(proxyFor('https://api.openai.com/v1', { env, inUse: true })).toMatchObject({
      url: 'http://other:8080',
      variable: 'HTTPS_PROXY',
      withUser: false,
    });
    expect(proxyFor('http://x.example/', { env, inUse: true })).toMatchObject({
      url: 'http://proxy:3128',
      variable: 'http_proxy',
      withUser: true,
    });
    expect(proxyFor('http://a.local/', { env, inUse: true })).toBeUndefined();
    expect(proxyFor('http://db:5432/', { env, inUse: true })).toBeUndefined();
    expect(proxyFor('http://db:5433/', { env, inUse: true })).toBeDefined();
    expect(proxyFor('https://x.example/', { env: { http_proxy: 'http://p:1' }, inUse: true })?.url).toBe(
      'http://p:1',
    );
    expect(proxyFor('https://x.example/', { env, inUse: false })).toBeUndefined();
  });
});

describe('every entry applies the rule from the one module', { timeout: STARTS_PROCESSES_MS }, () => {
  it('the desktop app calls it at the top of its main module, before the app is ready', () => {
    const src = readFileSync(join(repoRoot, 'src-main/electron/main.ts'), 'utf8');
    const program = parse(src, { sourceType: 'module', plugins: ['typescript'] }).program;
    const imported = program.body.some(
      (s) =>
        s.type === 'ImportDeclaration' &&
        s.source.value === '../infra/net/proxy-env.ts' &&
        s.specifiers.some((x) => x.local.name === 'reachLoopbackDirectly'),
    );
    expect(imported).toBe(true);
    const statements = program.body.map((s) => src.slice(s.start ?? 0, s.end ?? 0));
    const call = statements.findIndex((s) => /^reachLoopbackDirectly\(\);$/.test(s));
    const ready = statements.findIndex((s) => s.includes('app.whenReady()'));
    expect(call).toBeGreaterThanOrEqual(0);
    expect(call).toBeLessThan(ready);
  });

  it('no other source keeps a copy of the rule (NO_PROXY is written in proxy-env.ts only)', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.(ts|mjs|js)$/.test(name)) files.push(p);
      }
    };
    for (const d of ['bin', 'src-main', 'scripts']) walk(join(repoRoot, d));
    const writers = files.filter((f) =>
      /\b(NO_PROXY|no_proxy)\b['"\]]*\s*=[^=]/.test(readFileSync(f, 'utf8')),
    );
    expect(writers.map((f) => relative(repoRoot, f))).toEqual(['src-main/infra/net/proxy-env.ts']);
  });

  it('under NODE_USE_ENV_PROXY, http.request follows the new NO_PROXY too, not only fetch', async () => {
    // A process started with a proxy (nothing listens there) and no NO_PROXY, as on a company machine:
    // after the rule, a request to a loopback server with node:http reaches it directly.
    const script = `
      import { createServer, get } from 'node:http';
      import { reachLoopbackDirectly } from ${JSON.stringify(join(repoRoot, 'src-main/infra/net/proxy-env.ts'))};
      reachLoopbackDirectly();
      const server = createServer((_q, r) => r.end('direct'));
      await new Promise((r) => server.listen(0, '127.0.0.1', r));
      const url = 'http://127.0.0.1:' + server.address().port + '/';
      const viaHttp = await new Promise((resolve) => {
        get(url, (res) => { let s = ''; res.on('data', (d) => (s += d)); res.on('end', () => resolve(s)); })
          .on('error', (e) => resolve('error: ' + e.message));
      });
      const viaFetch = await fetch(url).then((r) => r.text(), (e) => 'error: ' + e.cause?.message);
      console.log(JSON.stringify({ viaHttp, viaFetch }));
      process.exit(0);
    `;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(no_proxy|https?_proxy)$/i.test(k)) env[k] = v;
    const r = await runCommand(nodeBin, ['--input-type=module', '-e', script], {
      env: { ...env, NODE_USE_ENV_PROXY: '1', HTTP_PROXY: 'http://127.0.0.1:9' },
    });
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ viaHttp: 'direct', viaFetch: 'direct' });
  });
});
