/**
 * The host reads a worker's protocol stream in chunks of whatever size the pipe gives. A line may come in
 * many chunks (a large result relayed through a slow pipe), many lines in one chunk, a line's end as a
 * chunk's first byte: each line is whole exactly once, and a line past MAX_WORKER_LINE ends the job as
 * output_limit however it is cut. (The reader searches only the new chunk for a line's end; these pin
 * down that it misses none.)
 *
 * The workers are small real processes speaking the worker protocol on stdin/stdout, writing their
 * answer in pieces with a pause between them so each arrives as a chunk of its own.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WORKER_LINE, WorkerConnection } from '../../../src-main/infra/sandbox/connection.ts';

const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A worker that answers a job with the text PIECES(id) returns, written piece by piece. */
function worker(pieces: string): WorkerConnection {
  const src = `
const pieces = ${pieces};
require('node:readline').createInterface({ input: process.stdin }).on('line', async (line) => {
  const m = JSON.parse(line);
  if (m.type !== 'job') return;
  for (const p of pieces(m.id)) {
    await new Promise((r) => process.stdout.write(p, r));
    await new Promise((r) => setTimeout(r, 5));
  }
});
setInterval(() => {}, 1000);
`;
  const child = spawn(process.execPath, ['-e', src], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  return new WorkerConnection(child.stdin, child.stdout, 'docker', async () => {
    child.kill('SIGKILL');
  });
}

const job = { code: 'emit_result(1)', tools: {}, timeoutMs: 10_000, maxOutputBytes: 8 << 20 };

describe("a worker's lines in pieces", () => {
  it('a 3 MB result in 64 KiB pieces, then log lines and the done in one piece, each whole once', async () => {
    const conn = worker(`(id) => {
      const result = JSON.stringify({ type: 'emit', id, kind: 'result', data: 'r'.repeat(3 << 20) }) + '\\n';
      const out = [];
      for (let i = 0; i < result.length; i += 65536) out.push(result.slice(i, i + 65536));
      const logs = [1, 2, 3].map((n) => JSON.stringify({ type: 'emit', id, kind: 'log', data: 'log ' + n }) + '\\n');
      out.push(logs.join('') + JSON.stringify({ type: 'done', id, ok: true }) + '\\n');
      return out;
    }`);
    const r = await conn.run(job);
    expect(r.exitReason).toBe('ok');
    expect(typeof r.data === 'string' && r.data.length).toBe(3 << 20);
    expect(r.logs).toEqual(['log 1', 'log 2', 'log 3']);
  });

  it("a line's end that comes as a chunk's first byte, and a line cut inside its end's chunk", async () => {
    const conn = worker(`(id) => {
      const a = JSON.stringify({ type: 'emit', id, kind: 'log', data: 'first' });
      const b = JSON.stringify({ type: 'emit', id, kind: 'log', data: 'second' });
      const d = JSON.stringify({ type: 'done', id, ok: true });
      return [a, '\\n' + b.slice(0, 10), b.slice(10) + '\\n' + d.slice(0, 5), d.slice(5), '\\n'];
    }`);
    const r = await conn.run(job);
    expect(r.exitReason).toBe('ok');
    expect(r.logs).toEqual(['first', 'second']);
  });

  it('a line past the limit, in pieces with no end yet, ends the job as output_limit', async () => {
    const conn = worker(`(id) => {
      const head = '{"type":"emit","id":' + JSON.stringify(id) + ',"kind":"result","data":"';
      return [head, ...Array.from({ length: ${Math.ceil(MAX_WORKER_LINE / 65536) + 2} }, () => 'x'.repeat(65536))];
    }`);
    const r = await conn.run(job);
    expect(r.exitReason).toBe('output_limit');
    expect(r.error?.message).toMatch(/a line over \d+ bytes/);
  });
});
