/**
 * An MCP server over Streamable HTTP (server-everything from npm in its streamableHttp mode) as a tool
 * source: URL and headers from declared variables, a script in the sandbox calling its tools.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { nodeBin } from '../../support/mcp-workspace.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

let server: ChildProcess;
let ws: string;
let svc: ToolsmithService;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/**
 * server-everything on a free port. It takes its port from PORT (it cannot report one the system
 * picks), so a port found free may be taken by another file's server before it listens: it then says
 * so and exits, and it starts again on another. Waits on the outcome (its "listening" line, or its
 * exit), not on a clock; the hook's budget ends a hang.
 */
async function startEverything(): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    server = spawn(
      nodeBin,
      [
        join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
        'streamableHttp',
      ],
      { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    const listening = await new Promise<boolean>((resolve) => {
      server.stderr!.on('data', (b: Buffer) => {
        err += b.toString();
        if (err.includes('listening on port')) resolve(true);
      });
      server.once('exit', () => resolve(false));
    });
    if (listening) return port;
    if (!/already in use/.test(err) || attempt === 5)
      throw new Error(`server-everything (HTTP) exited before it listened on ${port}: ${err}`);
  }
}

beforeAll(async () => {
  const port = await startEverything();
  ws = tempWorkspace('toolsmith-mcp-http-');
  appendFileSync(
    join(ws, '.toolsmith/config.toml'),
    `
[mcp_servers.web]
url = "http://127.0.0.1:${port}/mcp"
headers = { "X-Toolsmith-Test" = "env:TOOLSMITH_TEST_MCP_HEADER" }
timeout_ms = 10000

[sandboxes.web.mcp.web]
tools = ["echo"]
aliases = { add = "get-sum" }
`,
  );
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
});
afterAll(async () => {
  await svc?.close();
  // Waited for: a Node process writes its compile cache (in the run's home) as it exits, and the run
  // removing that home at the same time failed with ENOTEMPTY.
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = once(server, 'exit');
    server.kill();
    await exited;
  }
  if (ws) removeWorkspace(ws);
});

describe('MCP over Streamable HTTP', () => {
  it('a header from an undeclared variable is a clear error naming it', async () => {
    delete process.env['TOOLSMITH_TEST_MCP_HEADER'];
    const failed = await svc.prepareMcp('web');
    expect(failed).toEqual([
      {
        server: 'web',
        error: 'MCP server web: header X-Toolsmith-Test needs $TOOLSMITH_TEST_MCP_HEADER, which is not set',
      },
    ]);
  });

  it('with the variable set, a script calls its tools through the sandbox', async () => {
    process.env['TOOLSMITH_TEST_MCP_HEADER'] = 'hello';
    expect(await svc.prepareMcp('web')).toEqual([]);
    expect(svc.mcp().status('web')).toMatchObject({ transport: 'http', state: 'connected' });
    expect(svc.catalog.registry('web').tools.map((t) => t.name)).toEqual(['add', 'echo']);
    const r = await svc.execution.executeScript({
      sandbox: 'web',
      language: 'python',
      body: 'e = echo(message="over http")\ns = add(a=40, b=2)\nemit_result([e.data, s.data])\n',
    });
    expect(r.error).toBeUndefined();
    expect(r.data).toEqual(['Echo: over http', 'The sum of 40 and 2 is 42.']);
    expect(r.toolCalls.map((t) => t.location)).toEqual(['mcp:web', 'mcp:web']);
  });
});
