/**
 * `toolsmith eval` as a real process against the scripted LLM server and real containers: exit codes,
 * JSON and JUnit output, progress lines, and a process killed mid-suite (the suite run reads as
 * interrupted, with every finished case kept).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { hostPython } from '../../support/host-python.ts';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { fence, modelOf, ORACLE, scriptedConfig, taskOf } from '../../support/suite-oracle.ts';
import { toolsmithArgv } from '../../support/toolsmith-process.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let ws: string;

function cli(args: string[]): {
  child: ChildProcess;
  done: Promise<{ code: number; out: string; err: string }>;
} {
  const child = spawn(...toolsmithArgv(ws, args), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number; out: string; err: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : -2), out, err })),
  );
  return { child, done };
}

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace();
  scriptedConfig(ws, llm.openaiUrl);
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe('toolsmith eval', () => {
  it('exit 0 when every case meets its threshold; JSON and JUnit XML', async () => {
    llm.responder = (req) => (ORACLE[taskOf(req)] ? fence(ORACLE[taskOf(req)] as string) : undefined);
    const junit = join(ws, 'junit.xml');
    const r = await cli(['eval', 'ecommerce', '--models', 'local:good', '--json', '--junit', junit]).done;
    expect(r.err).toMatch(/\[8\/8\] 8 passed, 0 failed/);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out) as { status: string; matrix: { overall: { met: number; cells: number } } };
    expect(v.status).toBe('passed');
    expect(v.matrix.overall).toMatchObject({ met: 8, cells: 8 });
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="ecommerce" tests="8" failures="0" errors="0">/);
    expect(xml.match(/<testcase /g)).toHaveLength(8);
  });

  it('exit 1 with the failing cells in the matrix and in JUnit; the comparison with the last run', async () => {
    llm.responder = (req) => {
      const task = taskOf(req);
      if (modelOf(req) === 'weak' && task.startsWith('How many units'))
        return fence('emit_result(check_inventory(product_id="p3").data["in_stock"])');
      return ORACLE[task] ? fence(ORACLE[task]) : undefined;
    };
    const junit = join(ws, 'junit2.xml');
    const r = await cli([
      'eval',
      'ecommerce',
      '--models',
      'local:good,local:weak',
      '--junit',
      junit,
      '--compare',
    ]).done;
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/local:good\s+local:weak/);
    expect(r.out).toMatch(/stock-tokyo\s+pass 1\/1 .*FAIL 0\/1/);
    expect(r.out).toMatch(/stock-tokyo @ local:weak: expected 9, got 4/);
    expect(r.out).toMatch(/compared with [0-9a-f-]+: 0 new failure\(s\), 0 fixed/);
    expect(r.out).toMatch(/added: stock-tokyo @ local:weak/);
    expect(r.out).toMatch(/tools\.py unchanged \([0-9a-f]{12}\)/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuite name="ecommerce @ local:weak" tests="8" failures="1"/);
    expect(xml).toMatch(/<failure message="expected 9, got 4"/);
  });

  it("a script's error and result with control characters: the matrix shows them as escapes, the JUnit file stays XML", async () => {
    // The weak model's scripts are the attacker: one raises an error holding a clipboard write (OSC 52),
    // a title set and a NUL; another returns a string holding a line erase, a cursor move and a CR.
    llm.responder = (req) => {
      const task = taskOf(req);
      if (modelOf(req) === 'weak' && task.startsWith('How many units'))
        return fence(
          'if check_inventory(product_id="p3").success:\n    raise ValueError("bad\\x1b]52;c;ZWNobyBwd25lZA==\\x07 \\x1b]0;owned\\x07 \\x00end")\nemit_result(0)',
        );
      if (modelOf(req) === 'weak' && ORACLE[task] && !task.startsWith('How many units'))
        return fence('emit_result("\\x1b[2K\\x1b[1A\\rok\\x9b31m")');
      return ORACLE[task] ? fence(ORACLE[task]) : undefined;
    };
    const junit = join(ws, 'junit-escapes.xml');
    const r = await cli(['eval', 'ecommerce', '--models', 'local:good,local:weak', '--junit', junit]).done;
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/stock-tokyo @ local:weak: .*ValueError/);
    // Nothing the scripts chose acts on the terminal: every control character is an escape.
    expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.out).toContain('bad\\x1b]52;c;ZWNobyBwd25lZA==\\x07 \\x1b]0;owned\\x07 \\x00end');
    // The report is XML a CI can read (expat, strict), and says the same in the same escapes.
    const xml = readFileSync(junit, 'utf8');
    // The suite's Python (test/support/host-python.ts), never the first python3 on PATH.
    const parsed = hostPython(
      'import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); print(sum(1 for _ in t.iter("failure")))',
      [junit],
    );
    // Parsed (its exit code: what a host shell or Python may print on stderr, a locale warning of the
    // person's, is not the XML's fault), finding the failures.
    expect(parsed.status, parsed.stderr).toBe(0);
    expect(Number(parsed.stdout.trim())).toBeGreaterThanOrEqual(2);
    expect(xml).toContain('bad\\x1b]52;c;ZWNobyBwd25lZA==\\x07 \\x1b]0;owned\\x07 \\x00end');
  });

  it('usage errors exit 2 with one line', async () => {
    const r = await cli(['eval', 'nope']).done;
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no suite nope/);
    const c = await cli(['eval', 'ecommerce', '--repeat', '0']).done;
    expect(c.code).toBe(2);
    // A JUnit file that could not be written is said before any LLM call (the results were lost after
    // the whole suite ran).
    const j = await cli(['eval', 'ecommerce', '--models', 'local:good', '--junit', '/nonexistent/dir/j.xml'])
      .done;
    expect(j.code).toBe(2);
    expect(j.err).toBe(
      'toolsmith: --junit /nonexistent/dir/j.xml: its folder /nonexistent/dir does not exist or cannot be written\n',
    );
    // So is a suite run to compare with that does not exist: it was named after the whole suite had
    // run, and the exit code was the cells' (0 when every case passed).
    const cmp = await cli(['eval', 'ecommerce', '--models', 'local:good', '--compare', 'bogus']).done;
    expect(cmp.code).toBe(2);
    expect(cmp.err).toBe('toolsmith: no suite run bogus\n');
    expect(llm.requests.length).toBe(0);
  });

  it('a process killed mid-suite leaves the suite run interrupted with its finished cases', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => `{ i = ${i} }`).join(', ');
    writeFileSync(
      join(ws, 'suites/slow.toml'),
      `sandbox = "ecommerce"\nmodels = ["local:good"]\nconcurrency = 2\n\n[[cases]]\nid = "n"\ntask = "Number {i}"\nvars = [${rows}]\n[[cases.assert]]\ntype = "equals"\nvalue = "{i}"\n`,
    );
    llm.responder = (req) => {
      const i = Number(/Number (\d+)/.exec(taskOf(req))?.[1]);
      return { text: fence(`emit_result(${i})`), delayMs: 250 };
    };
    const { child, done } = cli(['eval', 'slow']);
    const store = new RunStore(join(ws, '.toolsmith/runs.db'));
    const suitesStore = new SuiteStore(store);
    // Four cases are recorded done (however long the machine takes to run them).
    const id = await vi.waitFor(
      () => {
        const row = suitesStore.list('slow', 1)[0];
        expect(row?.done ?? 0).toBeGreaterThanOrEqual(4);
        return row!.id;
      },
      { timeout: 120_000, interval: 100 },
    );
    child.kill('SIGKILL');
    await done;
    store.close();
    const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
    try {
      const suites = await svc.suites();
      const v = suites.get(id);
      expect(v.status).toBe('interrupted');
      expect(v.results.length).toBeGreaterThanOrEqual(4);
      expect(v.results.length).toBeLessThan(20);
      expect(v.results.every((r) => r.passed)).toBe(true);
      const runs = (await svc.runs()).list({ suiteRun: id, limit: 100 }).runs;
      expect(runs.filter((r) => r.status === 'succeeded').length).toBeGreaterThanOrEqual(v.results.length);
      expect(runs.some((r) => r.status === 'interrupted')).toBe(true);
      expect(runs.some((r) => r.status === 'running')).toBe(false);
    } finally {
      await svc.close();
    }
  });
});
