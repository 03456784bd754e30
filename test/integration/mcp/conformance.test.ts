/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, every server scenario) against
 * `toolsmith mcp --http`. The suite's CLI takes only a URL, so a forwarding proxy adds the bearer token the
 * way a configured client would. Scenarios that need the reference server's own tools, resources or
 * prompts cannot pass here; they are listed in `conformance-baseline.yml` (the suite's expected-failures
 * file) and in docs/mcp.md with the reason. The CLI exits 1 on any unexpected failure and on any listed
 * scenario that starts to pass, and the test asserts the passing list itself.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';
import { startBearerProxy } from './support/bearer-proxy.ts';
import type { BearerProxy } from './support/bearer-proxy.ts';
import { startMcpHttpProcess } from './support/mcp-http-process.ts';
import type { McpHttpProcess } from './support/mcp-http-process.ts';

/** Every server scenario Toolsmith passes (suite "all" of the pinned conformance version). */
const PASSING = [
  'dns-rebinding-protection',
  'logging-set-level',
  'ping',
  'resources-list',
  'server-initialize',
  'server-sse-multiple-streams',
  'tools-call-error',
  'tools-call-simple-text',
  'tools-list',
];

let ws: string;
let server: McpHttpProcess;
let proxy: BearerProxy;
const out = mkdtempSync(join(tmpdir(), 'toolsmith-conformance-'));

beforeAll(async () => {
  const cli = join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  if (!existsSync(cli)) throw new Error(`the conformance suite is not installed (${cli}); run npm ci`);
  ws = tempWorkspace('toolsmith-conformance-ws-');
  server = await startMcpHttpProcess(ws);
  proxy = await startBearerProxy(server.url, server.token ?? '');
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await server?.stop();
  if (ws) removeWorkspace(ws);
  rmSync(out, { recursive: true, force: true });
});

function conformance(args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const p = spawn(
      join(repoRoot, 'node_modules/.bin/node'),
      [join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'), ...args],
      { cwd: out, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout }));
  });
}

it('passes the server scenarios listed, and fails only those in the baseline', async () => {
  const results = join(out, 'results');
  const run = await conformance([
    'server',
    '--url',
    proxy.url,
    '--suite',
    'all',
    '--expected-failures',
    join(repoRoot, 'test/integration/mcp/conformance-baseline.yml'),
    '-o',
    results,
  ]);
  // One folder per scenario: server-<scenario>-<timestamp>/checks.json.
  const verdicts = new Map<string, boolean>();
  for (const dir of readdirSync(results)) {
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT/.exec(dir)?.[1];
    if (!scenario) continue;
    const checks = JSON.parse(readFileSync(join(results, dir, 'checks.json'), 'utf8')) as {
      status: string;
    }[];
    verdicts.set(scenario, checks.length > 0 && checks.every((c) => c.status !== 'FAILURE'));
  }
  const passed = [...verdicts]
    .filter(([, ok]) => ok)
    .map(([s]) => s)
    .sort();
  expect(verdicts.size, run.stdout).toBeGreaterThanOrEqual(30);
  expect(passed, run.stdout).toEqual(PASSING);
  expect(run.code, run.stdout).toBe(0);
}, 300_000);
