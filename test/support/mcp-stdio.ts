/**
 * Toolsmith's MCP server over stdio as a client meets it: `toolsmith --workspace WS mcp` started by the
 * official MCP SDK client's stdio transport (the CLI as installed, on the repo's Node).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { toolsmithArgv } from './toolsmith-process.ts';

/**
 * The transport that starts `toolsmith --workspace WS mcp`, its stderr piped (read it with
 * `transport.stderr`). `env` is the server's whole environment; without it this process's own, which
 * holds the test run's home of its own (TOOLSMITH_HOME, TOOLSMITH_DATA_DIR, XDG_*: test/support/isolated-home.ts).
 * (The SDK's default would pass only HOME, PATH, USER and the like: the server then used the person's
 * own data folder under HOME.)
 */
export function mcpStdio(ws: string, env?: NodeJS.ProcessEnv): StdioClientTransport {
  const [command, args] = toolsmithArgv(ws, ['mcp']);
  return new StdioClientTransport({
    command,
    args,
    env: (env ?? process.env) as Record<string, string>,
    stderr: 'pipe',
  });
}

/**
 * An SDK client named `name` (version 1.0.0), connected over `mcpStdio(ws, env)`. Without `elicit` it
 * declares no capabilities; with it, elicitation, and each elicitation request the server sends is
 * answered with what `elicit` returns for its message.
 */
export async function connectMcp(
  ws: string,
  name: string,
  env?: NodeJS.ProcessEnv,
  elicit?: (message: string) => ElicitResult,
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, elicit ? { capabilities: { elicitation: {} } } : {});
  if (elicit) client.setRequestHandler(ElicitRequestSchema, (req) => elicit(req.params.message));
  await client.connect(mcpStdio(ws, env));
  return client;
}
