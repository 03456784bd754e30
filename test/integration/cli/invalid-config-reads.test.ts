/**
 * While config.toml is invalid, the verbs that read only what it does not shape (recorded runs,
 * template and skill files) still answer, saying on stderr that the config is invalid and where; every
 * verb whose answer depends on the config refuses it (exit 3, the same line). Before, `runs list` and
 * `runs show` exited 3 too: a half-edited config hid every recorded run.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
let llm: LlmServer;
let runId = '';
let configFile = '';
let goodConfig = '';
/** The line every answer names: the file, the line of the fault and the parser's words. */
const WHERE = /config\.toml:\d+:\d+: a table header that is not closed \("\[limits"/;

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-invalid-config-reads-');
  llm = await startLlmServer();
  llm.push({ text: '```python\nemit_result(get_user(user_id="u1").data["name"])\n```' });
  const run = await runToolsmith(ws, [
    'run',
    'the name of user u1 (invalid config reads)',
    '--sandbox',
    'ecommerce',
    '--no-templates',
    '--base-url',
    llm.openaiUrl,
    '--model',
    'm',
    '--json',
  ]);
  expect(run.code, run.err).toBe(0);
  runId = (JSON.parse(run.out) as { id: string }).id;
  configFile = join(ws, '.toolsmith', 'config.toml');
  goodConfig = readFileSync(configFile, 'utf8');
  // A hand edit left half done: the file no longer parses.
  appendFileSync(configFile, '\n[limits\ntimeout_s = 30\n');
});
afterAll(async () => {
  await llm?.close();
  removeWorkspace(ws);
});

describe('an invalid config.toml', () => {
  it('runs list and runs show (and their --json) answer, with a warning naming the file and line', async () => {
    const list = await runToolsmith(ws, ['runs', 'list']);
    expect(list.code, list.err).toBe(0);
    expect(list.out).toContain(runId.slice(0, 8));
    expect(list.err).toMatch(WHERE);
    expect(list.err).toMatch(/^toolsmith: warning: .*the config is not used: runs list does not need it/m);
    const listJson = await runToolsmith(ws, ['runs', 'list', '--json']);
    expect(listJson.code, listJson.err).toBe(0);
    const listed = JSON.parse(listJson.out) as { runs: { id: string }[] };
    expect(listed.runs.map((r) => r.id)).toContain(runId);
    const show = await runToolsmith(ws, ['runs', 'show', runId.slice(0, 8), '--json']);
    expect(show.code, show.err).toBe(0);
    expect((JSON.parse(show.out) as { id: string }).id).toBe(runId);
    expect(show.err).toMatch(WHERE);
    const exported = await runToolsmith(ws, ['runs', 'export', runId]);
    expect(exported.code, exported.err).toBe(0);
    expect(exported.out).toContain(runId);
  });

  it('the secrets the invalid config names are still redacted from what runs show and runs export print', async () => {
    // A run that holds a provider key's value (imported, or recorded before the config named the key):
    // redacted by every verb while the config is whole, since it names the variable that holds the key.
    const secret = 'sk-qa15-invalid-config-secret-0123456789';
    const doc = JSON.parse(readFileSync(join(repoRoot, 'test/fixtures/runs/run-v1.json'), 'utf8')) as {
      events: { type: string; data: { task?: string } }[];
    };
    (doc.events[0] as { data: { task?: string } }).data.task = `a task that quotes ${secret}`;
    const docFile = join(ws, 'with-a-key.json');
    writeFileSync(docFile, JSON.stringify(doc));
    const broken = readFileSync(configFile, 'utf8');
    const named = goodConfig.replace(/^(\[\[providers\]\][^[]*?)$/m, '$1\napi_key_env = "QA15_PROVIDER_KEY"');
    expect(named).toContain('api_key_env = "QA15_PROVIDER_KEY"');
    try {
      writeFileSync(configFile, named);
      const imported = await runToolsmith(ws, ['runs', 'import', docFile]);
      expect(imported.code, imported.err).toBe(0);
      const id = /imported run (\S+)/.exec(imported.out)?.[1] ?? '';
      expect(id).not.toBe('');
      const env = { QA15_PROVIDER_KEY: secret };
      const whole = await runToolsmith(ws, ['runs', 'show', id, '--json'], env);
      expect(whole.code, whole.err).toBe(0);
      expect(whole.out).toContain('[redacted]');
      expect(whole.out).not.toContain(secret);
      // The same config, left invalid by a half-done edit further down.
      writeFileSync(configFile, `${named}\n[limits\ntimeout_s = 30\n`);
      for (const verb of [
        ['runs', 'show', id, '--json'],
        ['runs', 'show', id],
        ['runs', 'export', id],
      ]) {
        const r = await runToolsmith(ws, verb, env);
        expect(r.code, r.err).toBe(0);
        expect(r.err).toMatch(WHERE);
        // Before: the key was printed whole while the config was invalid.
        expect(r.out, verb.join(' ')).not.toContain(secret);
        expect(r.out, verb.join(' ')).toContain('[redacted]');
      }
    } finally {
      writeFileSync(configFile, broken);
    }
  });

  it('template list and skill list answer with the warning', async () => {
    for (const verb of [
      ['template', 'list'],
      ['skill', 'list'],
    ]) {
      const r = await runToolsmith(ws, [...verb, '--json']);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toBeTypeOf('object');
      expect(r.err).toMatch(WHERE);
    }
  });

  it("a control character in the invalid config's words (a key of its own) is shown, never sent to the terminal", async () => {
    // A strict table's unknown key holding an OSC sequence (it sets the terminal's title) and a bidi override.
    writeFileSync(configFile, `${goodConfig}\n[telemetry]\n"\\u001b]0;pwned\\u0007\\u202ex" = 1\n`);
    try {
      const r = await runToolsmith(ws, ['runs', 'list']);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toMatch(
        /^toolsmith: warning: .*telemetry: .*the config is not used: runs list does not need it/m,
      );
      // Before: the ESC, BEL and U+202E reached the terminal as they are.
      expect(r.err).not.toMatch(/[\u001b\u0007\u202e]/);
      expect(r.err).toContain('\\x1b]0;pwned\\x07\\u202ex');
    } finally {
      // (as beforeAll left it)
      writeFileSync(configFile, `${goodConfig}\n[limits\ntimeout_s = 30\n`);
    }
  });

  it('verbs whose answer depends on the config refuse it: exit 3, the file and the line', async () => {
    for (const verb of [
      ['kit', 'list'],
      ['tools', '--sandbox', 'ecommerce'],
      ['mcp-servers', 'list'],
      ['runs', 'export', runId, '--otlp', 'http://127.0.0.1:9'],
      ['runs', 'delete', runId],
    ]) {
      const r = await runToolsmith(ws, verb);
      expect(r.code, `${verb.join(' ')}: ${r.err}`).toBe(3);
      expect(r.err).toMatch(WHERE);
      expect(r.err).not.toMatch(/warning/);
    }
    // (the run was not deleted)
    writeFileSync(configFile, goodConfig);
    const after = await runToolsmith(ws, ['runs', 'list']);
    expect(after.out).toContain(runId.slice(0, 8));
    expect(after.err).toBe('');
  });
});
