/**
 * `imagePresent` (infra/sandbox/image-check.ts), the one request a cached `toolsmith image build` makes to
 * the engine, written on a plain unix socket: the real engine's answers for an image it has and one it
 * has not, and "cannot tell" (undefined, the caller then takes the full path) for every other answer:
 * a server that is not HTTP, an HTTP error, a server that closes or never answers, no socket, a remote
 * DOCKER_HOST.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { imagePresent } from '../../../src-main/infra/sandbox/image-check.ts';

let dir: string;
const servers: Server[] = [];
const savedHost = process.env['DOCKER_HOST'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-image-check-'));
});
afterEach(() => {
  if (savedHost === undefined) delete process.env['DOCKER_HOST'];
  else process.env['DOCKER_HOST'] = savedHost;
  for (const s of servers.splice(0)) s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A unix socket server that hands each request's text to `answer`; its path, and the requests seen. */
async function server(
  name: string,
  answer: (request: string, reply: (text: string, close?: boolean) => void) => void,
): Promise<{ path: string; requests: string[] }> {
  const path = join(dir, `${name}.sock`);
  const requests: string[] = [];
  const s = createServer((c) => {
    let text = '';
    c.setEncoding('latin1');
    c.on('data', (d: string) => {
      text += d;
      if (!text.includes('\r\n\r\n')) return;
      requests.push(text);
      answer(text, (reply, close = true) => {
        c.write(reply);
        if (close) c.end();
      });
    });
    c.on('error', () => {});
  });
  servers.push(s);
  await new Promise<void>((resolve) => s.listen(path, resolve));
  return { path, requests };
}

describe('imagePresent: one request on the engine socket', () => {
  it('the local engine: true for an image it has, false for one it has not', async () => {
    const tags = execFileSync('docker', ['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter((t) => t && !t.includes('<none>'));
    expect(tags.length).toBeGreaterThan(0);
    expect(await imagePresent(tags[0]!)).toBe(true);
    expect(await imagePresent('toolsmith/no-such-image:0000000000')).toBe(false);
  });

  it('asks GET /images/TAG/json (the tag escaped) and reads the status line only', async () => {
    const ok = await server('ok', (_r, reply) =>
      reply('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"Id":"x"}'),
    );
    process.env['DOCKER_HOST'] = `unix://${ok.path}`;
    expect(await imagePresent('toolsmith/python:abc')).toBe(true);
    expect(ok.requests[0]).toMatch(/^GET \/images\/toolsmith%2Fpython%3Aabc\/json HTTP\/1\.0\r\n/);
    const missing = await server('missing', (_r, reply) => reply('HTTP/1.0 404 Not Found\r\n\r\n'));
    process.env['DOCKER_HOST'] = `unix://${missing.path}`;
    expect(await imagePresent('x:1')).toBe(false);
    // The status line in pieces.
    const slow = await server('pieces', (_r, reply) => {
      reply('HTTP/1.1 2', false);
      setTimeout(() => reply('00 OK\r\n\r\n'), 50);
    });
    process.env['DOCKER_HOST'] = `unix://${slow.path}`;
    expect(await imagePresent('x:1')).toBe(true);
  });

  it('cannot tell (undefined) from anything else', async () => {
    const answers: [string, (r: string, reply: (t: string, close?: boolean) => void) => void][] = [
      ['error', (_r, reply) => reply('HTTP/1.1 500 Internal Server Error\r\n\r\n')],
      ['not-http', (_r, reply) => reply('hello there\r\n')],
      ['closes', (_r, reply) => reply('')],
      ['endless-line', (_r, reply) => reply('x'.repeat(4096), false)],
      ['silent', () => {}],
    ];
    for (const [name, answer] of answers) {
      const s = await server(name, answer);
      process.env['DOCKER_HOST'] = `unix://${s.path}`;
      expect(await imagePresent('x:1', 300), name).toBeUndefined();
    }
    process.env['DOCKER_HOST'] = `unix://${join(dir, 'nothing-here.sock')}`;
    expect(await imagePresent('x:1')).toBeUndefined();
    process.env['DOCKER_HOST'] = 'tcp://127.0.0.1:2375';
    expect(await imagePresent('x:1')).toBeUndefined();
  });
});
