/**
 * The components project's Chromium (test/support/chromium.ts, vitest.config.ts) sends nothing to the
 * person's proxy: with `HTTP_PROXY`/`HTTPS_PROXY` set in the run's environment (a company machine's), it
 * sent its own traffic there (autofill queries as the form tests typed, component updates, account
 * checks), though it needs nothing but the vitest server on 127.0.0.1. The real browser, started with the
 * project's switches and a recording proxy in its environment: a page on another host is not asked of
 * the proxy, and a loopback page still loads.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { chromiumArgs, chromiumPath } from '../../support/chromium.ts';

let proxy: Server;
let site: Server;
/** What reached the proxy: one line a request or tunnel. */
const asked: string[] = [];

const listen = async (s: Server): Promise<number> => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
};

beforeAll(async () => {
  proxy = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(502).end();
  });
  proxy.on('connect', (req, socket) => {
    asked.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>loopback</title>');
  });
});

afterAll(async () => {
  proxy?.closeAllConnections();
  site?.closeAllConnections();
  await Promise.all([proxy, site].map((s) => new Promise((r) => s?.close(r))));
});

describe('the components project’s Chromium', () => {
  it(
    'sends nothing to a proxy in the environment, and loads a loopback page',
    async () => {
      const proxyUrl = `http://127.0.0.1:${await listen(proxy)}`;
      const sitePort = await listen(site);
      const env = Object.fromEntries(
        Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined),
      );
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        args: chromiumArgs,
        env: {
          ...env,
          HTTP_PROXY: proxyUrl,
          HTTPS_PROXY: proxyUrl,
          http_proxy: proxyUrl,
          https_proxy: proxyUrl,
        },
      });
      try {
        // (a name that resolves nowhere: fetched directly it fails at once; through a proxy it reaches
        // it). A page each: a failed navigation's error page would cut the next one short.
        for (const url of ['http://toolsmith-proxy-check.invalid/', 'https://toolsmith-proxy-check.invalid/'])
          await (await browser.newPage()).goto(url).catch(() => undefined);
        const page = await browser.newPage();
        await page.goto(`http://127.0.0.1:${sitePort}/`);
        expect(await page.title()).toBe('loopback');
      } finally {
        await browser.close();
      }
      expect(asked).toEqual([]);
    },
    STARTS_PROCESSES_MS,
  );
});
