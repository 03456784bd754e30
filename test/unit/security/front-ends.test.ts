/** Attempts to break the front-end hardening: Electron policy, preload surface, web server. */
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { METHODS } from '../../../src-main/contract/api.ts';
import {
  devToolsAllowed,
  externalUrlToOpen,
  isAllowedRequestUrl,
  isTrustedSender,
  WEB_PREFERENCES,
} from '../../../src-main/electron/policy.ts';
import { CSP } from '../../../src-main/web/csp.ts';
import { startWebServer } from '../../../src-main/web/server.ts';
import type { WebServer } from '../../../src-main/web/server.ts';
import WebSocket from 'ws';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('Electron policy', () => {
  it('window preferences are hardened', () => {
    expect(WEB_PREFERENCES).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      allowRunningInsecureContent: false,
    });
  });
  it.each([
    'https://evil.example/x.js',
    'http://127.0.0.1:8080/',
    'ws://x',
    'ftp://x',
    'javascript:alert(1)',
  ])('blocks remote request %s', (url) => {
    expect(isAllowedRequestUrl(url, '/app/out/renderer')).toBe(false);
  });
  it.each([
    'file:///app/out/renderer/index.html',
    'file:///app/out/renderer/assets/index-abc.js',
    'blob:file:///abc',
    'data:image/png;base64,AA',
  ])('allows local %s', (url) => {
    expect(isAllowedRequestUrl(url, '/app/out/renderer')).toBe(true);
  });
  it.each([
    'file:///etc/passwd',
    'file:///home/user/.ssh/id_rsa',
    'file:///app/out/renderer/../../secrets.txt',
    'file:///app/out/renderer/%2e%2e/%2e%2e/secrets.txt',
    'file:///app/out/renderer-evil/x.js',
    'file:///app/out/renderer',
    'file://remote-host/app/out/renderer/index.html',
    'file:///app/out/renderer/x%00.js',
  ])('blocks a file: URL outside the renderer folder: %s', (url) => {
    expect(isAllowedRequestUrl(url, '/app/out/renderer')).toBe(false);
  });
  it('devtools: pages load only when devtools are allowed (development)', () => {
    expect(isAllowedRequestUrl('devtools://devtools/bundled/x.html', '/app/out/renderer')).toBe(false);
    expect(isAllowedRequestUrl('devtools://devtools/bundled/x.html', '/app/out/renderer', true)).toBe(true);
  });
  it('devtools are allowed only unpackaged and outside NODE_ENV=production', () => {
    expect(devToolsAllowed(true, undefined)).toBe(false);
    expect(devToolsAllowed(false, 'production')).toBe(false);
    expect(devToolsAllowed(false, 'development')).toBe(true);
  });
  it('only opens https links externally', () => {
    expect(externalUrlToOpen('https://docs.example/x')).toBe('https://docs.example/x');
    for (const u of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'http://x',
      'smb://host/share',
      'not a url',
    ])
      expect(externalUrlToOpen(u)).toBeUndefined();
  });
  it('only the top-level renderer page is a trusted sender', () => {
    const r = 'file:///app/out/renderer/index.html';
    expect(isTrustedSender(r, true, r)).toBe(true);
    expect(isTrustedSender(`${r}#/runs?x=1`, true, r)).toBe(true);
    expect(isTrustedSender(r, false, r)).toBe(false);
    expect(isTrustedSender('file:///app/out/renderer/evil.html', true, r)).toBe(false);
    expect(isTrustedSender('https://evil.example/out/renderer/index.html', true, r)).toBe(false);
    expect(isTrustedSender('file://evilhost/app/out/renderer/index.html', true, r)).toBe(false);
    expect(isTrustedSender(undefined, true, r)).toBe(false);
  });
  it('the preload exposes exactly one named method per contract entry and no generic invoke', () => {
    const src = readFileSync(join(root, 'src-preload/index.ts'), 'utf8');
    const listed = [...src.matchAll(/^ {2}'([a-z]+\.[A-Za-z]+)',$/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual([...METHODS].sort());
    expect(src).not.toMatch(/invoke\(\s*channel/);
    expect(src).toContain("exposeInMainWorld('toolsmith'");
  });
  it('the CSP forbids remote and inline scripts', () => {
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(CSP).toContain("object-src 'none'");
    expect(readFileSync(join(root, 'src-renderer/index.html'), 'utf8')).toContain("script-src 'self'");
  });
});

describe('web front end', () => {
  let web: WebServer;
  let svc: ToolsmithService;
  beforeAll(async () => {
    const stat = mkdtempSync(join(tmpdir(), 'toolsmith-static-'));
    writeFileSync(join(stat, 'index.html'), '<html>ok</html>');
    svc = ToolsmithService.open(join(root, 'resources/workspace'));
    web = await startWebServer(svc, { staticDir: stat });
  });
  afterAll(async () => {
    await web.close();
  });
  const origin = () => `http://127.0.0.1:${web.port}`;
  const call = (method: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin()}/api/${method}`, {
      method: 'POST',
      headers: {
        origin: origin(),
        authorization: `Bearer ${web.token}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('binds to 127.0.0.1 and prints a URL with the token', () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/);
  });
  it('answers a valid call', async () => {
    const r = (await (await call('sandboxes.list', {})).json()) as { ok: boolean; value: { name: string }[] };
    expect(r.ok).toBe(true);
    expect(r.value.map((s) => s.name)).toEqual(['ecommerce', 'support']);
  });
  it('refuses a missing or wrong token', async () => {
    expect((await call('sandboxes.list', {}, { authorization: '' })).status).toBe(401);
    expect((await call('sandboxes.list', {}, { authorization: `Bearer ${web.token}x` })).status).toBe(401);
  });
  it('refuses another origin (a page elsewhere cannot call the API)', async () => {
    expect((await call('sandboxes.list', {}, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await call('sandboxes.list', {}, { origin: 'null' })).status).toBe(403);
  });
  it('validates payloads and reports errors as data', async () => {
    const bad = (await (await call('tools.list', { sandbox: '../../etc' })).json()) as {
      ok: boolean;
      error: { code: string };
    };
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    const extra = (await (await call('sandboxes.list', { evil: 1 })).json()) as { ok: boolean };
    expect(extra.ok).toBe(false);
    const unknown = (await (await call('system.exec', {})).json()) as {
      ok: boolean;
      error: { message: string };
    };
    expect(unknown.error.message).toMatch(/unknown method/);
    const missing = (await (await call('tools.list', { sandbox: 'nope' })).json()) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(missing.error).toMatchObject({ code: 'not_found' });
    expect(JSON.stringify(missing)).not.toMatch(/at .*\.ts:\d+/);
  });
  it('serves static files with the CSP and never outside its folder', async () => {
    const ok = await fetch(`${origin()}/`);
    expect(ok.headers.get('content-security-policy')).toBe(CSP);
    for (const p of ['/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json'])
      expect((await fetch(`${origin()}${p}`)).status).toBe(404);
  });
  it('the events socket needs the token and the origin', async () => {
    const open = (url: string, o: string) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(url, { origin: o });
        ws.on('open', () => {
          ws.close();
          resolve('open');
        });
        ws.on('error', () => resolve('refused'));
        ws.on('unexpected-response', () => resolve('refused'));
      });
    const wsUrl = `ws://127.0.0.1:${web.port}/api/events`;
    expect(await open(`${wsUrl}?token=${web.token}`, origin())).toBe('open');
    expect(await open(`${wsUrl}?token=wrong`, origin())).toBe('refused');
    expect(await open(`${wsUrl}?token=${web.token}`, 'https://evil.example')).toBe('refused');
  });
});
