/**
 * A full disk, as a user's machine meets it: the workspace lives on a small tmpfs that fills up while a
 * real `toolsmith mcp --http` process has runs in it. The affected write fails saying "disk full" with the
 * path; the process and its other runs stay alive; reads go on; a run's events held while the disk was
 * full are written when space returns. Needs root (mount).
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DiskFullError, RunStore } from '../../../src-main/infra/store/run-store.ts';
import { atomicWrite } from '../../../src-main/infra/workspace/files.ts';
import { SkillFiles, parseSkillText } from '../../../src-main/infra/workspace/skill-files.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { copyWorkspace, replaceProviders, sampleWorkspace } from '../../support/workspace.ts';
import { connectMcpHttp, startMcpHttpProcess } from '../mcp/support/mcp-http-process.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import type { McpHttpProcess } from '../mcp/support/mcp-http-process.ts';

const root = mkdtempSync(join(tmpdir(), 'toolsmith-diskfull-'));
const ws = join(root, 'ws');
const filler = join(root, 'filler');
let llm: LlmServer;
let server: McpHttpProcess | undefined;
let client: Client | undefined;

/** Writes `filler` until the tmpfs refuses (ENOSPC): the disk is full. */
function fillDisk(): void {
  const fd = openSync(filler, 'a');
  const block = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, block);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
  // The last partial blocks too: nothing is left.
  const small = openSync(filler, 'a');
  try {
    for (;;) writeSync(small, Buffer.alloc(512, 1));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(small);
  }
}
const freeDisk = () => rmSync(filler, { force: true });

const SCRIPT = '```python\nr = check_inventory(product_id="p3")\nemit_result(r.data["in_stock"])\n```';

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('the disk-full tests mount a tmpfs: run them as root');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', root]);
  copyWorkspace(sampleWorkspace, ws);
  llm = await startLlmServer();
  const configFile = join(ws, '.toolsmith', 'config.toml');
  const config = replaceProviders(
    readFileSync(configFile, 'utf8'),
    `[[providers]]\nid = "scripted"\nkind = "openai"\nbase_url = "${llm.openaiUrl}"\nmodel = "scripted-model"\n`,
  );
  atomicWrite(configFile, config);
  server = await startMcpHttpProcess(ws);
  client = await connectMcpHttp(server.url, server.token ?? '', 'disk-full-test');
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
  await llm?.close();
  try {
    execFileSync('umount', [root]);
  } catch {
    execFileSync('umount', ['-l', root]);
  }
  rmSync(root, { recursive: true, force: true });
});

const textOf = (r: unknown): string => (r as { content: { text: string }[] }).content[0]?.text ?? '';

async function delegate(task: string): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  const r = await (client as Client).callTool(
    { name: 'delegate', arguments: { task, sandbox: 'ecommerce' } },
    undefined,
    { timeout: 120_000 },
  );
  return { isError: r.isError === true, body: JSON.parse(textOf(r)) as Record<string, unknown> };
}

async function showRun(runId: string): Promise<{ status: string; result?: unknown; attempts: unknown[] }> {
  const r = await runToolsmith(ws, ['runs', 'show', runId, '--json']);
  if (r.code !== 0) throw new Error(`runs show failed (${r.code}): ${r.err}`);
  return JSON.parse(r.out) as { status: string; result?: unknown; attempts: unknown[] };
}

describe('a full disk under a live toolsmith mcp --http', () => {
  it('a run in flight when the disk fills goes on; a new run fails saying disk full; reads go on; nothing is lost when space returns', async () => {
    // The disk fills while the model is answering: the run is recorded, its next events cannot be.
    llm.responder = (req) => {
      if (JSON.stringify(req.body).includes('in flight')) fillDisk();
      return SCRIPT;
    };
    const inFlight = await delegate('how many p3 are in stock (in flight)');
    expect(inFlight.isError).toBe(false);
    expect(inFlight.body).toMatchObject({ status: 'succeeded', result: 4 });
    const runId = String(inFlight.body['runId']);

    // Reads go on from another process while the disk is full.
    const list = await runToolsmith(ws, ['runs', 'list']);
    expect(list.err).not.toMatch(/\n\s+at /);
    expect(list.code).toBe(0);
    expect(list.out).toContain(runId);

    // The process that holds the run's end lists it with that status (the MCP resources' list, as the
    // workbench's runs.list, reads the run list of the process): before, `running`, its stored status,
    // until the held events were written. Another process reads what is written: still `running`, so the
    // end was still held when the list was read.
    const resources = await (client as Client).listResources();
    const listed = resources.resources.find((r) => r.uri === `toolsmith://runs/${runId}`);
    expect(listed?.title).toMatch(/^succeeded: /);
    expect((await showRun(runId)).status).toBe('running');

    // A new run cannot be recorded: the error names the cause and the file; the process lives on.
    const refused = await delegate('how many p3 are in stock (refused)');
    expect(refused.isError).toBe(true);
    expect(String(refused.body['error'])).toMatch(
      /disk full: a new run could not be written to .+?runs\.db \(SQLITE_FULL|SQLITE_IOERR.*free space on that disk/,
    );
    expect(String(refused.body['error'])).not.toMatch(/rollback|internal error/);
    const tools = await (client as Client).listTools();
    expect(tools.tools.map((t) => t.name)).toContain('delegate');

    // Space returns: the held events are written, in order; the run reads as it ran.
    freeDisk();
    const shown = await vi.waitFor(
      async () => {
        const s = await showRun(runId);
        expect(s.status).toBe('succeeded');
        return s;
      },
      { timeout: 120_000, interval: 200 },
    );
    expect(shown.result).toBe(4);
    expect(shown.attempts).toHaveLength(1);

    // And the process still runs and records new runs.
    llm.responder = () => SCRIPT;
    const after = await delegate('how many p3 are in stock (after)');
    expect(after.body).toMatchObject({ status: 'succeeded', result: 4 });
    expect((await showRun(String(after.body['runId']))).status).toBe('succeeded');
    expect(server?.stderr()).not.toMatch(/cannot rollback|Uncaught|unhandled/i);
  }, 240_000);
});

describe('a one-shot run --json on a disk that fills while the model answers', () => {
  it('prints one JSON document: its answer; the events it could not keep are said on stderr with exit 3, never as a second JSON document', async () => {
    llm.responder = (req) => {
      if (JSON.stringify(req.body).includes('one-shot')) fillDisk();
      return SCRIPT;
    };
    try {
      const r = await runToolsmith(ws, [
        'run',
        'how many p3 are in stock (one-shot)',
        '--sandbox',
        'ecommerce',
        '--json',
      ]);
      // The run's answer, whole, and nothing after it: before, the close's error followed it as a
      // second JSON object ({"error": ...}), and a program reading stdout could not parse it.
      expect(JSON.parse(r.out)).toMatchObject({ status: 'succeeded', result: 4 });
      expect(r.out).not.toContain('"error": {');
      expect(r.err).toMatch(/disk full/);
      expect(r.code).toBe(3);
    } finally {
      freeDisk();
      llm.responder = () => SCRIPT;
    }
  }, 240_000);
});

describe('the run store and workspace files on a full disk', () => {
  it('append holds events in memory and flushes them in order; createRun fails with DiskFullError; no rollback error', () => {
    const file = join(root, 'direct', 'runs.db');
    const store = new RunStore(file);
    try {
      const id = store.createRun({
        task: 't',
        sandbox: 's',
        mode: 'plan',
        language: 'python',
        maxRetries: 0,
        maxSteps: 1,
      });
      store.append(id, 'tier', { n: 1, tier: 'llm', provider: 'p' });
      fillDisk();
      const held = store.append(id, 'prompt', {
        n: 1,
        kind: 'first',
        system: 'x'.repeat(200_000),
        user: 'u',
        sections: [],
        hints: [],
      });
      store.append(id, 'run_finished', { status: 'failed', error: 'e' });
      expect(held.seq).toBe(2);
      expect(store.pendingEvents()).toBe(2);
      expect(store.events(id).map((e) => e.type)).toEqual(['run_started', 'tier', 'prompt', 'run_finished']);
      const err = (() => {
        try {
          store.createRun({
            task: 't2',
            sandbox: 's',
            mode: 'plan',
            language: 'python',
            maxRetries: 0,
            maxSteps: 1,
          });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err).toBeInstanceOf(DiskFullError);
      expect((err as Error).message).toMatch(/^disk full: a new run could not be written to .*runs\.db \(/);
      expect(store.flush()).toBe(false);
      freeDisk();
      expect(store.flush()).toBe(true);
      expect(store.pendingEvents()).toBe(0);
    } finally {
      freeDisk();
      store.close();
    }
    const again = new RunStore(file);
    try {
      const [run] = again.list().runs;
      expect(run?.status).toBe('failed');
      expect(again.events(run?.id ?? '').map((e) => [e.seq, e.type])).toEqual([
        [0, 'run_started'],
        [1, 'tier'],
        [2, 'prompt'],
        [3, 'run_finished'],
      ]);
    } finally {
      again.close();
    }
  });

  it("the run list and a run's summary show the status of a run's held events, filtered and counted by it", () => {
    const file = join(root, 'held-list', 'runs.db');
    const store = new RunStore(file);
    const start = (task: string) =>
      store.createRun({ task, sandbox: 's', mode: 'plan', language: 'python', maxRetries: 0, maxSteps: 1 });
    try {
      const ended = start('ends while the disk is full');
      const going = start('still going');
      fillDisk();
      store.append(ended, 'llm_response', {
        n: 1,
        model: 'm',
        provider: 'p',
        text: 'x'.repeat(100_000),
        promptTokens: 3,
        completionTokens: 4,
        latencyMs: 1,
        retries: [],
      });
      store.append(ended, 'run_finished', { status: 'succeeded', result: 4 });
      // Held: the row still says running.
      expect(store.pendingEvents()).toBe(2);
      const byId = (runs: { id: string; status: string }[]) =>
        Object.fromEntries(runs.map((r) => [r.id, r.status]));
      const all = store.list();
      expect(byId(all.runs)).toEqual({ [ended]: 'succeeded', [going]: 'running' });
      expect(all.runs.find((r) => r.id === ended)).toMatchObject({ tokens: 7, model: 'm' });
      expect(store.summary(ended)?.status).toBe('succeeded');
      // Filtered and counted by the held status: the exact totals of the status chips agree.
      const running = store.list({ status: 'running' });
      expect(running.runs.map((r) => r.id)).toEqual([going]);
      expect(running).toMatchObject({ total: 1, totalExact: true });
      const succeeded = store.list({ status: ['succeeded', 'failed'] });
      expect(succeeded.runs.map((r) => r.id)).toEqual([ended]);
      expect(succeeded).toMatchObject({ total: 1, totalExact: true });
      expect(store.list({ status: 'succeeded', sandbox: 's', count: true }).total).toBe(1);
      expect(store.list({ status: 'running', text: 'going' }).runs.map((r) => r.id)).toEqual([going]);
      // Filtered by the model it is listed with (its row has none yet): before, not found by it.
      expect(store.list({ model: 'm' }).runs.map((r) => r.id)).toEqual([ended]);
      expect(store.list({ model: 'm', text: 'disk', count: true })).toMatchObject({ total: 1 });
      freeDisk();
      expect(store.flush()).toBe(true);
      expect(byId(store.list().runs)).toEqual({ [ended]: 'succeeded', [going]: 'running' });
      expect(store.list({ status: 'running' })).toMatchObject({ total: 1, totalExact: true });
    } finally {
      freeDisk();
      store.close();
    }
  });

  it('a skill saved in another language on a full disk keeps its file (it was removed before the new one failed)', () => {
    const skillsRoot = join(root, 'skills-ws');
    mkdirSync(skillsRoot);
    const files = new SkillFiles(skillsRoot);
    const where = (ext: string) => ({
      sandbox: 'ecommerce',
      name: 'user_tier',
      file: join(skillsRoot, 'skills', 'ecommerce', `user_tier.${ext}`),
    });
    const py = parseSkillText(
      '# +++\n# version = 1\n# +++\ndef user_tier(user_id: str) -> str:\n    """A customer\'s tier.\n\n    Args:\n        user_id: The customer\'s id.\n\n    Returns:\n        The tier.\n    """\n    return get_user(user_id=user_id).data["tier"]\n',
      where('py'),
    );
    const saved = files.write(py);
    const pyText = readFileSync(saved.file, 'utf8');
    // Version 2 in JavaScript, longer than one page of the tmpfs.
    const js = parseSkillText(
      `// +++\n// version = 2\n// +++\n/**\n * A customer's tier.\n${' * (a long description)\n'.repeat(300)} * @param {string} user_id The customer's id.\n * @returns The tier.\n */\nasync function user_tier(user_id) {\n  return (await get_user({ user_id })).data.tier;\n}\n`,
      where('js'),
      'js',
    );
    // Full, but for two pages: the save's lock file (.toolsmith/skills.lock) and the history's copy of
    // version 1 fit, version 2's file does not.
    const spare = join(root, 'spare');
    atomicWrite(spare, 'x'.repeat(8192));
    fillDisk();
    rmSync(spare);
    try {
      expect(() => files.write(js)).toThrow(/^disk full: .+?user_tier\.js could not be written \(ENOSPC/);
      expect(readFileSync(saved.file, 'utf8')).toBe(pyText);
      expect(files.list('ecommerce').map((e) => [e.name, e.skill?.language, e.error])).toEqual([
        ['user_tier', 'python', undefined],
      ]);
    } finally {
      freeDisk();
    }
    expect(files.write(js).file).toBe(where('js').file);
    expect(existsSync(saved.file)).toBe(false);
    expect(files.list('ecommerce').map((e) => [e.name, e.skill?.language])).toEqual([['user_tier', 'js']]);
  });

  it('a workspace file written on a full disk keeps its old content, leaves no temporary file and says disk full', () => {
    const dir = join(root, 'files');
    execFileSync('mkdir', ['-p', dir]);
    const file = join(dir, 'config.toml');
    atomicWrite(file, 'old = 1\n');
    fillDisk();
    try {
      expect(() => atomicWrite(file, `new = "${'x'.repeat(100_000)}"\n`)).toThrow(
        /^disk full: .*config\.toml could not be written \(ENOSPC: no space left on device\); the file was left as it was/,
      );
      expect(readFileSync(file, 'utf8')).toBe('old = 1\n');
      expect(readdirSync(dir)).toEqual(['config.toml']);
    } finally {
      freeDisk();
    }
    expect(existsSync(filler)).toBe(false);
  });
});
