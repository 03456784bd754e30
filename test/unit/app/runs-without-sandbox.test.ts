/**
 * Issue 10 bugs around starting and listing runs, on a service with no sandbox backend at all (what a
 * machine without a Docker engine sees): the run store is SQLite only.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cli } from '../../support/cli.ts';

const workspaces: string[] = [];
afterAll(() => workspaces.forEach(removeWorkspace));
const workspace = () => {
  const ws = tempWorkspace();
  workspaces.push(ws);
  return ws;
};

// A run that never answers hangs until this budget ends the test (a service opens a store and a catalog).
describe('runs.start answers when the run cannot be created', { timeout: STARTS_PROCESSES_MS }, () => {
  for (const noTemplates of [true, false]) {
    it(`noTemplates=${noTemplates}: runs.start rejects with an error instead of never answering`, async () => {
      const svc = ToolsmithService.open(workspace());
      const runs = await svc.runs();
      runs.store.close(); // the store can no longer create a run
      // Awaited as it is: one that never answers hangs until the test's budget ends it.
      const r = await dispatch(svc, 'runs.start', { task: 'list orders', sandbox: 'ecommerce', noTemplates });
      expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
    });
  }

  it('replay and continue answer too', async () => {
    const svc = ToolsmithService.open(workspace());
    const runs = await svc.runs();
    const o = await runs.runScript({ sandbox: 'ecommerce', body: 'import os\n' }); // fails validation, no sandbox
    expect(o.status).toBe('failed');
    // An LLM answer to replay (a run no LLM answered is refused before a run is created).
    runs.store.append(o.runId, 'llm_response', {
      n: 1,
      text: '```python\nemit_result(1)\n```',
      promptTokens: 10,
      completionTokens: 5,
      model: 'qwen2.5-coder:7b',
      provider: 'local',
      latencyMs: 1,
      retries: [],
    });
    const db = (runs.store as unknown as { db: { exec(sql: string): void } }).db;
    // Creating a run now fails (a constraint the store does not know), reading still works.
    db.exec("CREATE TRIGGER no_new_runs BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
    const replay = await dispatch(svc, 'runs.replay', { runId: o.runId });
    expect(replay).toMatchObject({ ok: false, error: { message: expect.stringMatching(/disk full/) } });
    const cont = await dispatch(svc, 'runs.continue', {
      runId: o.runId,
      attempt: 1,
      body: 'emit_result(1)\n',
    });
    expect(cont).toMatchObject({ ok: false, error: { message: expect.stringMatching(/disk full/) } });
  });
});

// These start the CLI as a process: seconds on a loaded machine (see budgets.ts).
describe('runs list without a sandbox backend', { timeout: STARTS_PROCESSES_MS }, () => {
  it('the service lists, gets and exports runs with no sandbox backend', async () => {
    const svc = ToolsmithService.open(workspace());
    const r = await dispatch(svc, 'runs.list', {});
    expect(r).toEqual({ ok: true, value: { total: 0, totalExact: true, runs: [] } });
    const counted = await dispatch(svc, 'runs.list', { text: 'anything', count: true });
    expect(counted).toEqual({ ok: true, value: { total: 0, totalExact: true, runs: [] } });
  });

  it('`toolsmith runs list` exits 0 when no Docker engine answers', async () => {
    const ws = workspace();
    const env = {
      TOOLSMITH_BACKEND: process.env['TOOLSMITH_BACKEND'],
      DOCKER_HOST: process.env['DOCKER_HOST'],
    };
    process.env['TOOLSMITH_BACKEND'] = 'docker';
    process.env['DOCKER_HOST'] = 'unix:///nonexistent/docker.sock';
    try {
      const r = await cli('--workspace', ws, 'runs', 'list');
      expect(r.err).toBe('');
      expect(r).toMatchObject({ code: 0, out: '0 of 0 run(s)\n' });
      const c = await cli('--workspace', ws, 'runs', 'list', '--search', 'orders', '--count');
      expect(c).toMatchObject({ code: 0, out: '0 of 0 run(s)\n' });
      // A filtered list counts up to its page; --count counts every match.
      const svc = ToolsmithService.open(ws);
      const store = (await svc.runs()).store;
      for (let i = 0; i < 3; i++)
        store.createRun({
          task: `check orders ${i}`,
          sandbox: 'ecommerce',
          mode: 'plan',
          language: 'python',
          maxRetries: 0,
          maxSteps: 1,
        });
      await svc.close();
      const some = await cli('--workspace', ws, 'runs', 'list', '--search', 'orders', '--limit', '2');
      expect(some.out).toMatch(/\n2 of 2\+ run\(s\) \(--count for the exact number\)\n$/);
      const all = await cli(
        '--workspace',
        ws,
        'runs',
        'list',
        '--search',
        'orders',
        '--limit',
        '2',
        '--count',
      );
      expect(all.out).toMatch(/\n2 of 3 run\(s\)\n$/);
    } finally {
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});

describe("the workspace's max_grade without a kit", { timeout: STARTS_PROCESSES_MS }, () => {
  // support's add_note is graded (1, 1); this workspace allows at most (1, 0).
  const strictWorkspace = () => {
    const ws = workspace();
    const cfg = join(ws, '.toolsmith/config.toml');
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8').replace(/max_grade = \{[^}]*\}/, 'max_grade = { w = 1, d = 0 }'),
    );
    return ws;
  };
  const NOTE = 'r = add_note(ticket_id=101, text="hi")\nemit_result(r.success)\n';

  it('scripts see only the tools within it: manual, validation and execution', async () => {
    const svc = ToolsmithService.open(strictWorkspace());
    expect(svc.catalog.scriptTools('support').tools.map((t) => t.name)).toEqual([
      'list_tickets',
      'get_ticket',
      'search_kb',
    ]);
    expect(svc.execution.buildPrompt('add a note', 'support').user).not.toContain('add_note');
    expect(svc.execution.validate({ code: NOTE, language: 'python', sandbox: 'support' }).valid).toBe(false);
    const r = await svc.execution.executeScript({ sandbox: 'support', language: 'python', body: NOTE });
    expect(r.exitReason).toBe('rejected');
    expect(r.error?.message).toContain('add_note');
  });

  it('`toolsmith exec` refuses a script calling a tool above it; `tool call` refuses the tool', async () => {
    const ws = strictWorkspace();
    const f = join(ws, 'note.py');
    writeFileSync(f, NOTE);
    const exec = await cli('--workspace', ws, 'exec', f, '--sandbox', 'support', '--json');
    expect(exec.code).toBe(1);
    expect(JSON.parse(exec.out)).toMatchObject({ exitReason: 'rejected' });
    const call = await cli(
      '--workspace',
      ws,
      'tool',
      'call',
      'add_note',
      '--sandbox',
      'support',
      '--args',
      '{}',
    );
    expect(call.code).toBe(3);
    expect(call.err).toMatch(/add_note has grade \(w=1, d=1\), above the workspace maximum \(w=1, d=0\)/);
  });
});
