/** The bounded, redacted tail of a worker's stderr that infra errors carry (real streams, no worker). */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  exitStatusText,
  STDERR_TAIL_CHARS,
  STDERR_TAIL_LINES,
  StderrTail,
} from '../../../src-main/infra/sandbox/stderr-tail.ts';

const SECRET = 'sk-live-0123456789abcdef';

async function tailOf(chunks: (string | Buffer)[], secrets: string[] = []): Promise<StderrTail> {
  const s = new PassThrough();
  const t = new StderrTail(s, secrets);
  for (const c of chunks) s.write(c);
  s.end();
  await t.settled(1000);
  return t;
}

describe('worker stderr tail', () => {
  it('keeps the last lines only, within the character bound', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(40)}`);
    const t = await tailOf([lines.join('\n') + '\n']);
    const kept = t.lines();
    expect(kept).toHaveLength(STDERR_TAIL_LINES);
    expect(kept.at(-1)).toMatch(/^line 499 /);
    expect(kept.join('\n').length).toBeLessThanOrEqual(STDERR_TAIL_CHARS);
    const huge = await tailOf(['y'.repeat(1_000_000)]);
    expect(huge.lines().join('').length).toBeLessThanOrEqual(STDERR_TAIL_CHARS);
  });

  it('blanks credential values, raw and string-escaped, also when split across chunks', async () => {
    const quoted = 'pa"ss\\word-1';
    const t = await tailOf(
      [`token=${SECRET.slice(0, 7)}`, `${SECRET.slice(7)}\n`, `repr: ${JSON.stringify(quoted)}\n`],
      [SECRET, quoted],
    );
    const text = t.lines().join('\n');
    expect(text).toContain('token=***');
    expect(text).toContain('repr: "***"');
    expect(text).not.toContain(SECRET.slice(3, 12));
  });

  it("blanks a credential in a traceback's KeyError (Python's repr) and URL-encoded", async () => {
    const key = 'vk-Q9+x/Za8=Wp"Lm\\Rt7';
    // What Python printed for `os.environ[...]` looked up by the key, and for a URL holding it.
    const t = await tailOf(
      [`KeyError: 'vk-Q9+x/Za8=Wp"Lm\\\\Rt7'\n`, `GET /?key=${encodeURIComponent(key)}\n`],
      [key],
    );
    expect(t.lines()).toEqual(["KeyError: '***'", 'GET /?key=***']);
  });

  it('leaves no fragment of a secret cut by the bound, nor of one cut off at the end', async () => {
    // The secret straddles the point where the kept window starts, after a long flood.
    const flood = 'z'.repeat(3 * STDERR_TAIL_CHARS);
    const t = await tailOf([flood, SECRET, 'q'.repeat(STDERR_TAIL_CHARS - 10)], [SECRET]);
    expect(t.lines().join('')).not.toMatch(/[0-9a-f]{6}/);
    const cut = await tailOf([`dying while printing ${SECRET.slice(0, 10)}`], [SECRET]);
    expect(cut.lines().join('')).toBe('dying while printing ***');
  });

  it('replaces control characters (terminal escapes) and skips blank lines', async () => {
    const t = await tailOf(['\u001b[31mred\u001b[0m\r\n\n\u0007bell\n']);
    expect(t.lines()).toEqual(['?[31mred?[0m', '?bell']);
  });

  it('describe(): the reason alone without stderr, else the reason and the lines', async () => {
    expect((await tailOf([])).describe('worker process exited (3)')).toBe('worker process exited (3)');
    expect((await tailOf(['boom\n'])).describe('worker process exited (3)')).toBe(
      "worker process exited (3); the worker's stderr ended with:\n  boom",
    );
  });

  it('settled() resolves after the grace period when the stream never ends', async () => {
    const s = new PassThrough();
    const t = new StderrTail(s);
    s.write('still open\n');
    await t.settled(50);
    expect(t.lines()).toEqual(['still open']);
    s.destroy();
  });
});

describe('how a worker ended, in words (exitStatusText)', () => {
  it('a status, a process killed by a signal, a container status above 128 by its signal, none known', () => {
    expect(exitStatusText(1)).toBe('exit status 1');
    expect(exitStatusText(0)).toBe('exit status 0');
    expect(exitStatusText(null, 'SIGKILL')).toBe('killed by SIGKILL');
    // Docker's StatusCode for a container whose process a signal ended: 128 + the signal's number.
    expect(exitStatusText(137)).toBe('exit status 137 (SIGKILL)');
    expect(exitStatusText(143)).toBe('exit status 143 (SIGTERM)');
    expect(exitStatusText(128 + 99)).toBe('exit status 227');
    expect(exitStatusText(undefined)).toBe('exit status unknown');
    expect(exitStatusText(null, null)).toBe('exit status unknown');
  });
});
