/**
 * `toolsmith eval` (the CLI as installed, a real process) on a sandbox whose tools come from an upstream
 * MCP server (test/fixtures/mcp/faulty-server.mjs over stdio), against the scripted LLM server and real
 * containers: the suite's cases call the MCP tool (they failed with `count() is not defined`, the suite
 * never connected the sandbox's servers), its `tool_called` assertion names it (refused before as "no tool
 * count"), and a suite whose server cannot start is refused before any LLM call, naming the server and why.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLlmServer } from '../../support/llm-server.ts';
import type { LlmServer } from '../../support/llm-server.ts';
import { addMcpSandboxes, MISSING_MCP_COMMAND } from '../../support/mcp-workspace.ts';
import { fence, scriptedConfig, taskOf } from '../../support/suite-oracle.ts';
import { outputOf, toolsmithArgv } from '../../support/toolsmith-process.ts';
import { spawn } from 'node:child_process';
import { tempWorkspace } from '../../support/workspace.ts';

let llm: LlmServer;
let ws: string;
const missing = MISSING_MCP_COMMAND;

const eval_ = (args: string[]) =>
  outputOf(spawn(...toolsmithArgv(ws, ['eval', ...args]), { stdio: ['ignore', 'pipe', 'pipe'] }));

beforeAll(async () => {
  llm = await startLlmServer();
  ws = tempWorkspace();
  scriptedConfig(ws, llm.openaiUrl);
  addMcpSandboxes(ws);
  mkdirSync(join(ws, 'suites'), { recursive: true });
  const suite = (sandbox: string) => `description = "MCP-backed"
sandbox = "${sandbox}"
models = ["local:good"]

[[cases]]
id = "count-once"
task = "Count once."

[[cases.assert]]
type = "tool_called"
tool = "count"

[[cases.assert]]
type = "predicate"
script = "emit_result(result['n'] >= 1)"
`;
  writeFileSync(join(ws, 'suites/counter.toml'), suite('counter'));
  // No tool assertion: nothing refuses the suite up front; its scripts failed with "count() is not defined".
  writeFileSync(
    join(ws, 'suites/plain.toml'),
    `sandbox = "counter"\nmodels = ["local:good"]\n\n[[cases]]\nid = "count-plain"\ntask = "Count by two."\n\n[[cases.assert]]\ntype = "matches"\npattern = "^\\\\{.*n.*\\\\}$"\n`,
  );
  writeFileSync(join(ws, 'suites/down.toml'), suite('down').replace('tool = "count"', 'tool = "whoami"'));
}, 120_000);
afterAll(() => llm.close());
beforeEach(() => llm.reset());

describe('toolsmith eval on a sandbox whose tools come from an MCP server', () => {
  it('runs the case with the MCP tool; the matrix and the JUnit file say it passed', async () => {
    llm.responder = (req) =>
      taskOf(req) === 'Count once.' ? fence('emit_result(count(step=1).data)') : undefined;
    const junit = join(ws, 'mcp-junit.xml');
    const r = await eval_(['counter', '--junit', junit]);
    expect(r.err).not.toMatch(/is not defined|no tool count/);
    expect(r.out).toMatch(/count-once\s+pass 1\/1/);
    expect(r.code).toBe(0);
    // The script the LLM wrote was the one it was prompted with the MCP tool for: one call, no correction.
    expect(llm.requests).toHaveLength(1);
    expect(JSON.stringify(llm.requests[0]?.body)).toMatch(/count\(/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="counter" tests="1" failures="0" errors="0">/);
    expect(xml).toMatch(
      /<testcase name="count-once" classname="counter\.local:good"[^>]*><system-out>pass rate 1\/1/,
    );
  });

  it('a suite without tool assertions runs its script with the MCP tool (not "count() is not defined")', async () => {
    llm.responder = (req) =>
      taskOf(req) === 'Count by two.' ? fence('emit_result(count(step=2).data)') : undefined;
    const r = await eval_(['plain', '--json']);
    expect(r.err).not.toMatch(/is not defined/);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out) as { status: string; results: { status: string; attempts: number }[] };
    expect(v.status).toBe('passed');
    expect(v.results).toMatchObject([{ status: 'succeeded', attempts: 1 }]);
  });

  it('a suite whose MCP server cannot start is refused before any LLM call, naming the server and why', async () => {
    llm.responder = () => fence('emit_result(whoami().data)');
    const junit = join(ws, 'down-junit.xml');
    const r = await eval_(['down', '--junit', junit]);
    // Infrastructure, not a usage error: exit 3, as a case that could not be judged.
    expect(r.code).toBe(3);
    expect(r.err).toMatch(
      /suites\/down\.toml: sandbox down takes tools from MCP servers that could not be reached: MCP server gone: /,
    );
    expect(r.err).toContain(missing);
    expect(r.err).not.toMatch(/is not defined|no tool whoami/);
    expect(llm.requests).toHaveLength(0);
    // Refused before it ran: no JUnit file claims a result.
    expect(existsSync(junit)).toBe(false);
  });
});
