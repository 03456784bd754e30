// A small upstream MCP server (official SDK, low-level Server, stdio) for the client-side tests:
//   --delay MS       connects its transport only after MS milliseconds (a slow start)
//   --tools N        serves N tools `tool_0` … (default 3), each echoing its arguments
//   --page-size N    tools/list answers N tools per page with a nextCursor
//   --keywords       also serves tools named `class`, `from` and `lambda` (Python/JS keywords)
//   --grow           calling `grow` adds a tool `grown_K` and sends notifications/tools/list_changed
//   `slow_progress`  sends a progress notification (`step I`, of the total) every 100 ms for `ms`
//                    milliseconds, then answers
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const delay = arg('--delay', 0);
const pageSize = arg('--page-size', 0);
const count = arg('--tools', 3);
const schema = { type: 'object', properties: { text: { type: 'string' } } };
// Read-only and closed-world, so the sample workspace's max_grade keeps them.
const annotations = { readOnlyHint: true, openWorldHint: false };
const tools = Array.from({ length: count }, (_, i) => ({
  name: `tool_${i}`,
  description: `Echo number ${i}: answers its arguments.`,
  inputSchema: schema,
  annotations,
}));
if (process.argv.includes('--keywords'))
  for (const name of ['class', 'from', 'lambda'])
    tools.push({ name, description: `A tool named ${name}.`, inputSchema: schema, annotations });
tools.push({
  name: 'slow_progress',
  description: 'Reports progress every 100 ms for `ms` milliseconds, then answers.',
  inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  annotations,
});
if (process.argv.includes('--grow'))
  tools.push({
    name: 'grow',
    description: 'Adds a tool.',
    inputSchema: { type: 'object', properties: {} },
    annotations,
  });

const server = new Server(
  { name: 'upstream', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
server.setRequestHandler(ListToolsRequestSchema, async (req) => {
  if (!pageSize) return { tools };
  const start = Number(req.params?.cursor ?? 0);
  const page = tools.slice(start, start + pageSize);
  return start + pageSize < tools.length
    ? { tools: page, nextCursor: String(start + pageSize) }
    : { tools: page };
});
let grown = 0;
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const { name, arguments: args = {} } = req.params;
  if (name === 'slow_progress') {
    const token = req.params._meta?.progressToken;
    const steps = Math.ceil(Number(args.ms ?? 0) / 100);
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (token !== undefined)
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
    }
    return { content: [{ type: 'text', text: JSON.stringify({ steps }) }] };
  }
  if (name === 'grow') {
    tools.push({
      name: `grown_${++grown}`,
      description: 'A tool added at run time.',
      inputSchema: schema,
      annotations,
    });
    await server.sendToolListChanged();
    return { content: [{ type: 'text', text: JSON.stringify({ grown }) }] };
  }
  if (!tools.some((t) => t.name === name))
    return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
  return { content: [{ type: 'text', text: JSON.stringify({ tool: name, args }) }] };
});

setTimeout(() => void server.connect(new StdioServerTransport()), delay);
