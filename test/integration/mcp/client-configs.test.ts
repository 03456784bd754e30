/**
 * The client configurations of docs/mcp-server.md ("Client configuration"), started exactly as they
 * are written: every JSON block of that section is parsed, and each server entry is connected with the
 * official SDK client — `command`/`args` through StdioClientTransport with the installed `toolsmith`
 * (a link to the clone's bin on PATH, as `npm install -g .` makes) and the machine's Node 20 first on
 * PATH; `url`/`headers` through StreamableHTTPClientTransport against the server the section's shell
 * block starts (on a port the system picks). The doc and the test cannot drift.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_VARS } from '../../support/isolated-file-home.ts';
import { removeWorkspace, repoRoot, tempWorkspace } from '../../support/workspace.ts';

interface ServerEntry {
  type?: string;
  command?: string;
  args?: string[];
  url?: string;
  headers?: Record<string, string>;
}

const doc = readFileSync(join(repoRoot, 'docs/mcp-server.md'), 'utf8');
const section = doc.slice(
  doc.indexOf('## Client configuration'),
  doc.indexOf('\n## ', doc.indexOf('## Client configuration') + 5),
);
const jsonBlocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map(
  (m) => JSON.parse(m[1]!) as Record<string, unknown>,
);
const shBlock = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
/** Each server entry with the client it belongs to (the bold name before its block). */
const entries: { client: string; entry: ServerEntry }[] = [];
for (const m of section.matchAll(/```json\n([\s\S]*?)```/g)) {
  const before = section.slice(0, m.index);
  const client = [...before.matchAll(/\*\*([^*]+)\*\*/g)].at(-1)?.[1] ?? '?';
  const block = JSON.parse(m[1]!) as {
    mcpServers?: Record<string, ServerEntry>;
    servers?: Record<string, ServerEntry>;
  };
  for (const entry of Object.values(block.mcpServers ?? block.servers ?? {})) entries.push({ client, entry });
}

let ws: string;
let binDir: string;
let env: Record<string, string>;
let http: ChildProcess | undefined;
let port = 0;
const token = 'client-config-test-token-0123456789';

beforeAll(async () => {
  ws = tempWorkspace('toolsmith-client-configs-');
  binDir = mkdtempSync(join(tmpdir(), 'toolsmith-bin-'));
  symlinkSync(join(repoRoot, 'bin/toolsmith.mjs'), join(binDir, 'toolsmith'));
  env = {
    PATH: `${binDir}:/usr/bin:/bin`,
    HOME: process.env['HOME'] ?? tmpdir(),
    // The file's own data and cache folders and the run's compile cache (test/support/isolated-*.ts):
    // without them these servers fell back to the person's ~/.local/share/toolsmith installation and
    // ~/.cache, shared with every other process that did the same, and started with a cold cache.
    ...Object.fromEntries(
      [...HOME_VARS, 'NODE_COMPILE_CACHE'].flatMap((v) => (process.env[v] ? [[v, process.env[v]]] : [])),
    ),
    TOOLSMITH_HOME: join(binDir, 'home'),
    TOOLSMITH_TOKEN: token,
  };
  const node = spawnSync('sh', ['-c', 'node --version'], { env, encoding: 'utf8' });
  expect(node.stdout, 'the machine Node first on PATH').toMatch(/^v20\./);
  // The shell block's server command, as written, but on a port the system picks (`--port 0`): a port
  // found free and closed again could be taken by another file's server before this one listened.
  const line = shBlock.split('\n').find((l) => l.startsWith('toolsmith '));
  expect(line).toBeDefined();
  const argv = line!
    .split(/\s+/)
    .slice(1)
    .map((a) => (a === '/path/to/workspace' ? ws : a === '8765' ? '0' : a));
  expect(argv).toContain('0');
  http = spawn('toolsmith', argv, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  // Waits on the outcome: the URL line (its port) or the process's exit; the hook's budget ends a hang.
  port = await new Promise<number>((resolve, reject) => {
    let err = '';
    http!.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const url = /Streamable HTTP on (\S+)/.exec(err)?.[1];
      if (url) resolve(Number(new URL(url).port));
    });
    http!.once('exit', (code) => reject(new Error(`the HTTP server exited ${code}: ${err}`)));
  });
});

afterAll(() => {
  http?.kill('SIGTERM');
  removeWorkspace(ws);
  rmSync(binDir, { recursive: true, force: true });
});

/** `${TOOLSMITH_TOKEN}` (Claude Code), `${env:TOOLSMITH_TOKEN}` (Cursor), `${input:…}` (VS Code, typed by the user). */
const expand = (v: string) =>
  v.replace(/\$\{(?:env:)?TOOLSMITH_TOKEN\}/g, token).replace(/\$\{input:toolsmith-token\}/g, token);

describe('docs/mcp-server.md client configurations', () => {
  it('has stdio and HTTP entries for Claude Desktop, Claude Code, Cursor and VS Code', () => {
    expect(jsonBlocks.length).toBeGreaterThanOrEqual(7);
    const clients = new Set(entries.map((e) => e.client));
    for (const c of ['Claude Desktop', 'Claude Code', 'Cursor', 'VS Code']) expect(clients).toContain(c);
    expect(
      entries
        .filter((e) => e.entry.url)
        .map((e) => e.client)
        .sort(),
    ).toEqual(['Claude Code', 'Cursor', 'VS Code']);
  });

  it.each(entries.map((e, i) => [`${e.client} ${e.entry.url ? 'HTTP' : 'stdio'} #${i}`, e.entry] as const))(
    '%s connects with the SDK client, lists the tools and validates a script',
    async (_name, entry) => {
      const client = new Client({ name: 'config-test', version: '1.0.0' });
      if (entry.command) {
        expect(entry.command).toBe('toolsmith');
        await client.connect(
          new StdioClientTransport({
            command: entry.command,
            args: (entry.args ?? []).map((a) => (a === '/path/to/workspace' ? ws : a)),
            env,
            stderr: 'pipe',
          }),
        );
      } else {
        const url = new URL(entry.url!);
        expect(url.port).toBe('8765');
        url.port = String(port);
        const headers = Object.fromEntries(
          Object.entries(entry.headers ?? {}).map(([k, v]) => [k, expand(v)]),
        );
        await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      }
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['code', 'validate', 'list_tools']));
        const r = (await client.callTool({
          name: 'validate',
          arguments: { code: 'emit_result(get_user(user_id="u1").data)' },
        })) as { content: { text: string }[]; isError?: boolean };
        expect(r.isError).toBeFalsy();
        expect(JSON.parse(r.content[0]!.text)).toMatchObject({ valid: true, violations: [] });
      } finally {
        await client.close();
      }
    },
    120_000,
  );
});
