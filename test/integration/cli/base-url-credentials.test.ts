/**
 * An LLM endpoint with a user or password in its URL (`--base-url http://user:pw@host/v1`, or a
 * provider's `base_url`): the HTTP client refuses such a URL, so every request failed as "Connection
 * error.", and the URL was quoted whole in that error, in the run's record and in its exported trace,
 * password included. It is refused before any run, the password never shown.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let llm: LlmServer;
const PASSWORD = 'PWsecret-998877665544';
const withCredentials = () => llm.openaiUrl.replace('http://', `http://qauser:${PASSWORD}@`);

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-base-url-credentials-');
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm?.close();
  removeWorkspace(ws);
});

describe('credentials in an LLM endpoint URL', () => {
  it.each([
    [
      'run',
      ['run', 'What is the name of user u1?', '--sandbox', 'ecommerce', '--no-templates', '--model', 'm'],
    ],
    ['eval', ['eval', 'ecommerce', '--models', 'm']],
  ])(
    '%s --base-url with a password is refused, the password not shown, no run recorded',
    async (_v, args) => {
      llm.fallback = { text: '```python\nemit_result(1)\n```' };
      const r = await runToolsmith(ws, [...args, '--base-url', withCredentials()]);
      expect(r.code).toBe(2);
      expect(r.err).toContain('--base-url: "http://[redacted]@127.0.0.1:');
      expect(r.err).toContain('holds a user or password');
      expect(r.err + r.out).not.toContain(PASSWORD);
      expect(llm.requests).toHaveLength(0);
      const list = await runToolsmith(ws, ['runs', 'list', '--json']);
      expect(list.out).not.toContain(PASSWORD);
      expect((JSON.parse(list.out) as { runs: unknown[] }).runs).toEqual([]);
    },
  );

  it("a provider's base_url with a password is a config error naming the key, the password not shown", async () => {
    const file = join(ws, '.toolsmith/config.toml');
    const before = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      before.replace('base_url = "http://127.0.0.1:11434/v1"', `base_url = "${withCredentials()}"`),
    );
    try {
      const r = await runToolsmith(ws, ['run', 'x', '--sandbox', 'ecommerce']);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(
        /providers\.0\.base_url: "http:\/\/\[redacted\]@127\.0\.0\.1:\d+\/v1" holds a user or password/,
      );
      expect(r.err + r.out).not.toContain(PASSWORD);
    } finally {
      writeFileSync(file, before);
    }
  });
});
