/** The browser front end's answers to odd requests: 404s (never a 500), the no-token page, a missing build. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { startWebServer } from '../../../src-main/web/server.ts';
import type { WebServer } from '../../../src-main/web/server.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

/** A raw request: the path goes to the server byte for byte (no URL normalisation on the way). */
function raw(port: number, path: string, method = 'GET', headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('web server paths', () => {
  let web: WebServer;
  let empty: WebServer;
  let svc: ToolsmithService;
  const ws = tempWorkspace();
  beforeAll(async () => {
    const stat = mkdtempSync(join(tmpdir(), 'toolsmith-static-'));
    writeFileSync(join(stat, 'index.html'), '<html>ok</html>');
    svc = ToolsmithService.open(ws);
    web = await startWebServer(svc, { staticDir: stat });
    empty = await startWebServer(svc, { staticDir: mkdtempSync(join(tmpdir(), 'toolsmith-nobuild-')) });
  });
  afterAll(async () => {
    await web.close();
    await empty.close();
    await svc.close();
    removeWorkspace(ws);
  });

  it.each([
    '//',
    '///x',
    '//api/x',
    '/%',
    '/%E0%A4%A',
    '/a%2',
    '/%00',
    '/..%2f..%2fetc%2fpasswd',
    '/nope.js',
  ])('GET %s answers 404, not 500', async (path) => {
    const r = await raw(web.port, path);
    expect(r.status).toBe(404);
  });

  it('an API method name that does not decode answers 404 as data', async () => {
    const origin = `http://127.0.0.1:${web.port}`;
    const r = await raw(web.port, '/api/%E0%A4%A', 'POST', { origin, authorization: `Bearer ${web.token}` });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('serves the page itself (the renderer shows the no-token message) and the API says where the URL is', async () => {
    expect((await raw(web.port, '/')).status).toBe(200);
    const origin = `http://127.0.0.1:${web.port}`;
    const r = await raw(web.port, '/api/sandboxes.list', 'POST', { origin });
    expect(r.status).toBe(401);
    expect(JSON.parse(r.body).error.message).toMatch(
      /open the URL that `toolsmith serve` printed in its terminal/,
    );
  });

  it.each([
    ['GET /', '/', 'GET'],
    ['GET a static file', '/index.html', 'GET'],
    ['an API call with the right Origin and token', '/api/sandboxes.list', 'POST'],
  ])('DNS rebinding: %s with a Host naming another site is refused', async (_what, path, method) => {
    const origin = `http://127.0.0.1:${web.port}`;
    for (const host of [`evil.example:${web.port}`, 'evil.example', `127.0.0.1.evil.example:${web.port}`]) {
      const r = await raw(web.port, path, method, { origin, authorization: `Bearer ${web.token}`, host });
      expect(r.status, host).toBe(403);
      expect(r.body).toMatch(/not allowed/);
    }
    for (const host of [`127.0.0.1:${web.port}`, `localhost:${web.port}`, `LOCALHOST:${web.port}`]) {
      const r = await raw(web.port, path, method, { origin, authorization: `Bearer ${web.token}`, host });
      expect(r.status, host).toBe(200);
    }
  });

  it('DNS rebinding: the events WebSocket with a Host naming another site is refused', async () => {
    const origin = `http://127.0.0.1:${web.port}`;
    const open = (host: string) =>
      new Promise<string>((resolve) => {
        const w = new WebSocket(`ws://127.0.0.1:${web.port}/api/events?token=${web.token}`, {
          origin,
          headers: { host },
        });
        w.on('open', () => {
          w.close();
          resolve('open');
        });
        w.on('unexpected-response', (_req, res) => resolve(`refused ${res.statusCode}`));
        w.on('error', () => resolve('error'));
      });
    expect(await open(`evil.example:${web.port}`)).toBe('refused 403');
    expect(await open(`127.0.0.1:${web.port}`)).toBe('open');
  });

  it('without a renderer build the page says how to build it', async () => {
    const r = await raw(empty.port, '/');
    expect(r.status).toBe(404);
    expect(r.body).toMatch(/The workbench is not built in .*npm run build/);
  });
});
