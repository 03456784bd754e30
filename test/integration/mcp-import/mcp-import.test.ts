/**
 * MCP servers as tool sources, against real servers from npm (server-memory, server-filesystem on a temp
 * folder, server-everything) started over stdio, real sandbox containers, and a faulty server of our own
 * for crashes and silence.
 */
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { ExecutionResult } from '../../../src-main/core/sandbox/execution.ts';
import { mcpWorkspace } from '../../support/mcp-workspace.ts';
import type { McpWorkspace } from '../../support/mcp-workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

let w: McpWorkspace;
let svc: ToolsmithService;

const py = (sandbox: string, body: string): Promise<ExecutionResult> =>
  svc.execution.executeScript({ sandbox, language: 'python', body });

const cli = (args: string[]) => runToolsmith(w.ws, args);

/**
 * The memory server's graph holding Alice and Bob (from the notes), written to its file: the server reads
 * the file at each call, so a test that reads them has them whatever ran before it. (They came from the
 * Python chain test, and the TS, kit and CLI tests failed when they ran first: `--sequence.shuffle`.)
 */
function graphOfAliceAndBob(): void {
  const person = (name: string, observations: string[]) =>
    JSON.stringify({ type: 'entity', name, entityType: 'person', observations });
  writeFileSync(
    w.memoryFile,
    `${person('Alice', ['Alice works on the compiler.', 'She likes tea.'])}\n${person('Bob', ['Bob runs the build farm.'])}\n`,
  );
}

beforeAll(async () => {
  w = mcpWorkspace();
  appendFileSync(
    join(w.ws, '.toolsmith/config.toml'),
    '\n[sandboxes.kgall]\ndescription = "every tool of the filesystem server"\n\n[sandboxes.kgall.mcp.files]\n',
  );
  writeFileSync(
    join(w.ws, 'kits/files_admin.kit'),
    'name = "files_admin"\nsandbox = "kgall"\ntools = ["read_text_file", "move_file"]\n',
  );
  writeFileSync(
    join(w.ws, 'kits/graph_reader.kit'),
    'name = "graph_reader"\nsandbox = "kg"\ntools = { graph = "read_graph", find = "search_nodes" }\n',
  );
  svc = ToolsmithService.open(w.ws, { sandboxFactory: createSandboxManager });
  const docker = (await (await svc.execution.sandbox()).status()).docker;
  if (!docker.available) throw new Error('these tests need the Docker engine (run scripts/ensure-env.sh)');
}, 300_000);
afterAll(async () => {
  await svc?.close();
});

describe('MCP tools in a sandbox', () => {
  it('an MCP-only sandbox lists its servers’ tools with grades from annotations (or the config), schemas and typed stubs', async () => {
    expect(await svc.prepareMcp('kg')).toEqual([]);
    expect(svc.catalog.sandboxes().map((s) => s.name)).toContain('kg');
    const tools = svc.catalog.registry('kg').tools;
    expect(tools.map((t) => t.name)).toEqual([
      'create_entities',
      'create_relations',
      'add_observations',
      'read_graph',
      'search_nodes',
      'open_nodes',
      'list_directory',
      'read_text_file',
      'write_file',
      'get_file_info',
      'add',
      'echo',
      'get_structured_content',
    ]);
    const by = (n: string) => tools.find((t) => t.name === n)!;
    expect(by('read_graph')).toMatchObject({
      location: 'mcp',
      grade: { w: 1, d: 0 },
      mcp: { server: 'memory', tool: 'read_graph' },
    });
    expect(by('create_entities').grade).toEqual({ w: 1, d: 1 });
    // write_file is destructive (d=2) by its annotations; the config overrides it to (1, 1).
    expect(by('write_file').grade).toEqual({ w: 1, d: 1 });
    expect(by('add').mcp).toEqual({ server: 'everything', tool: 'get-sum' });
    const prompt = svc.catalog.registry('kg').prompt();
    expect(prompt).toContain('<tool name="create_entities" location="mcp">');
    expect(prompt).toContain(
      'class CreateEntitiesEntitiesItem(TypedDict):\n    name: str\n    entityType: str\n    observations: list[str]',
    );
    expect(prompt).toContain(
      'def create_entities(*, entities: list[CreateEntitiesEntitiesItem]) -&gt; ToolResponse:',
    );
    // `from` is a Python keyword: the functional TypedDict syntax.
    expect(prompt).toContain(
      'CreateRelationsRelationsItem = TypedDict("CreateRelationsRelationsItem", {"from": str, "to": str, "relationType": str})',
    );
    expect(prompt).toContain(
      'declare function read_text_file(args: { path: string; tail?: number; head?: number })',
    );
    // Output schemas document `data`.
    expect(by('read_graph').returns).toMatch(/^data: \{ entities: Array<\{ name: string;/);
    // The OpenAI shape is the server's JSON Schema, flat.
    const { stdout } = { stdout: (await cli(['tools', '--sandbox', 'kg', '--format', 'openai'])).out };
    const openai = JSON.parse(stdout) as {
      name: string;
      parameters: { properties: Record<string, unknown>; required: string[] };
    }[];
    const ce = openai.find((f) => f.name === 'create_entities')!;
    expect(ce.parameters.required).toEqual(['entities']);
    expect(ce.parameters.properties['entities']).toMatchObject({
      type: 'array',
      items: { required: ['name', 'entityType', 'observations'] },
    });
  });

  it('a Python script chains filesystem and memory tools inside the sandbox; results and traces are right', async () => {
    // (an empty graph: the script creates both people, and create_entities answers only new ones)
    rmSync(w.memoryFile, { force: true });
    const r = await py(
      'kg',
      `
listing = list_directory(path="${w.files}/notes")
names = [line.split(" ", 1)[1] for line in listing.data["content"].splitlines() if line.startswith("[FILE]")]
entities = []
for name in sorted(names):
    text = read_text_file(path="${w.files}/notes/" + name).data["content"]
    person = name.split(".")[0].capitalize()
    entities.append({"name": person, "entityType": "person", "observations": text.strip().splitlines()})
created = create_entities(entities=entities)
create_relations(relations=[{"from": "Alice", "to": "Bob", "relationType": "works_with"}])
add_observations(observations=[{"entityName": "Bob", "contents": ["Bob drinks coffee."]}])
found = search_nodes(query="coffee")
written = write_file(path="${w.files}/summary.txt", content=", ".join(e["name"] for e in created.data["entities"]))
s = add(a=20, b=22)
emit_result({
    "created": [e["name"] for e in created.data["entities"]],
    "found": [e["name"] for e in found.data["entities"]],
    "relations": read_graph().data["relations"],
    "written": written.success,
    "sum": s.data,
})
`,
    );
    expect(r.error).toBeUndefined();
    expect(r.success).toBe(true);
    expect(r.data).toEqual({
      created: ['Alice', 'Bob'],
      found: ['Bob'],
      relations: [{ from: 'Alice', to: 'Bob', relationType: 'works_with' }],
      written: true,
      sum: 'The sum of 20 and 22 is 42.',
    });
    expect(readFileSync(join(w.files, 'summary.txt'), 'utf8')).toBe('Alice, Bob');
    expect(readFileSync(w.memoryFile, 'utf8')).toContain('Bob drinks coffee.');
    expect(r.toolCalls.map((t) => `${t.name}@${t.location}`)).toEqual([
      'list_directory@mcp:files',
      'read_text_file@mcp:files',
      'read_text_file@mcp:files',
      'create_entities@mcp:memory',
      'create_relations@mcp:memory',
      'add_observations@mcp:memory',
      'search_nodes@mcp:memory',
      'write_file@mcp:files',
      'add@mcp:everything',
      'read_graph@mcp:memory',
    ]);
    expect(r.toolCalls[0]!.args).toEqual({ path: `${w.files}/notes` });
    expect(r.toolCalls.every((t) => t.ms >= 0 && t.result?.success)).toBe(true);
  });

  it('a TS script chains memory, filesystem and everything tools (structuredContent becomes data)', async () => {
    graphOfAliceAndBob();
    const r = await svc.execution.executeScript({
      sandbox: 'kg',
      language: 'ts',
      body: `
const info = await get_file_info({ path: ${JSON.stringify(join(w.files, 'notes', 'bob.txt'))} });
const graph = await open_nodes({ names: ['Alice'] });
const weather = await get_structured_content({ location: 'Chicago' });
const echoed = await echo({ message: 'hi from ts' });
await add_observations({ observations: [{ entityName: 'Alice', contents: ['Alice reviewed ' + String(info.success)] }] });
const alice = (await open_nodes({ names: ['Alice'] })).data as { entities: { observations: string[] }[] };
emitResult({
  size: JSON.stringify(info.data).includes('size'),
  before: (graph.data as { entities: unknown[] }).entities.length,
  weather: Object.keys(weather.data as object).sort(),
  echoed: echoed.data,
  last: alice.entities[0]!.observations.at(-1),
});
`,
    });
    expect(r.error).toBeUndefined();
    expect(r.runtime).toBe('node');
    expect(r.data).toEqual({
      size: true,
      before: 1,
      weather: ['conditions', 'humidity', 'temperature'],
      echoed: 'Echo: hi from ts',
      last: 'Alice reviewed true',
    });
    expect(new Set(r.toolCalls.map((t) => t.location))).toEqual(
      new Set(['mcp:files', 'mcp:memory', 'mcp:everything']),
    );
  });

  it('a tool returning isError is success false with the server’s message; the script goes on', async () => {
    const r = await py(
      'kg',
      `
r = read_text_file(path="${w.files}/missing.txt")
emit_result({"success": r.success, "message": r.message})
`,
    );
    expect(r.success).toBe(true);
    const d = r.data as { success: boolean; message: string };
    expect(d.success).toBe(false);
    expect(d.message).toMatch(/ENOENT|no such file/i);
    expect(r.toolCalls[0]).toMatchObject({ location: 'mcp:files', result: { success: false } });
  });

  it('arguments that violate the schema are refused before the call, with a clear message', async () => {
    const r = await py(
      'kg',
      `create_entities(entities=[{"name": "Mallory", "entityType": 7}])\nemit_result(1)\n`,
    );
    expect(r.success).toBe(false);
    expect(r.error?.message).toContain('invalid arguments for memory.create_entities (not sent)');
    expect(r.error?.message).toMatch(/entities\.0 must have required property 'observations'/);
    expect(r.error?.message).toMatch(/entities\.0\.entityType must be string/);
    expect(r.toolCalls[0]).toMatchObject({ name: 'create_entities', location: 'mcp:memory' });
    expect(existsSync(w.memoryFile) ? readFileSync(w.memoryFile, 'utf8') : '').not.toContain('Mallory');
    // The same check for a TS script.
    const t = await svc.execution.executeScript({
      sandbox: 'kg',
      language: 'ts',
      body: `await add({ a: 'one', b: 2 });\nemitResult(1);\n`,
    });
    expect(t.success).toBe(false);
    expect(t.error?.message).toMatch(
      /invalid arguments for everything.get-sum \(not sent\): a must be number/,
    );
  });

  it('a server that crashes mid-run: the call fails with a clear error, the next call restarts it', async () => {
    const r = await py(
      'flaky',
      `
first = count()
try:
    crash()
    crashed = None
except Exception as e:
    crashed = str(e)
again = count()
emit_result({"first": first.data, "crashed": crashed, "again": again.data})
`,
    );
    expect(r.error).toBeUndefined();
    const d = r.data as {
      first: { n: number; pid: number };
      crashed: string;
      again: { n: number; pid: number };
    };
    expect(d.first.n).toBe(1);
    expect(d.crashed).toMatch(/MCP server faulty went away during crash/);
    expect(d.again.n).toBe(1); // a fresh process
    expect(d.again.pid).not.toBe(d.first.pid);
    expect(svc.mcp().status('faulty').connects).toBeGreaterThanOrEqual(2);
  });

  it('a tool that never answers times out with a clear error; cancellation aborts the request', async () => {
    const r = await py('flaky', 'stall()\nemit_result(1)\n');
    expect(r.success).toBe(false);
    expect(r.error?.message).toMatch(/MCP server faulty did not answer stall within 1500 ms/);
    // The run's AbortSignal reaches the MCP request.
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    await expect(svc.mcp().callTool('faulty', 'stall', {}, { signal: ac.signal })).rejects.toThrow(
      /cancelled/,
    );
  });

  it('a server that never answers: scripts, CLI and tool lists say so within its time limit, no hang', async () => {
    const r = await py('mute', 'emit_result(1)\n');
    expect(r.success).toBe(false);
    expect(r.exitReason).toBe('infra');
    expect(r.error?.message).toMatch(/MCP server silent did not answer initialize within 1500 ms/);
    const c = await cli(['mcp-servers', 'test', 'silent']);
    expect(c.code).toBe(1);
    expect(c.err).toMatch(/did not answer initialize within 1500 ms/);
    // exec says it once, in its result (before: the same line on stderr first, then in the result).
    const script = join(w.files, 'one.py');
    writeFileSync(script, 'emit_result(1)\n');
    const x = await cli(['exec', script, '--sandbox', 'mute']);
    expect(x.code).toBe(1);
    expect(x.out).toMatch(/^Infra: MCP server silent did not answer initialize within 1500 ms/m);
    expect(x.err).not.toMatch(/did not answer initialize/);
    // A tool that may be the server's: not found, with the server that could not be reached and why, once
    // (before: "no tool ... available: none", the server said only on the line before it).
    const t = await cli(['tool', 'call', 'read_graph', '--sandbox', 'mute']);
    expect(t.code).toBe(2);
    expect(t.err).toMatch(
      /^toolsmith: no tool read_graph in sandbox mute; available: .*; the tools of its MCP servers that could not be reached are missing: MCP server silent did not answer initialize within 1500 ms/,
    );
    expect(t.err.match(/did not answer initialize/g)).toHaveLength(1);
  });

  it('kits and the workspace maximum grade apply to MCP tools', async () => {
    graphOfAliceAndBob();
    await svc.prepareMcp('kgall');
    await svc.prepareMcp('kg');
    const kits = svc.catalog.kits();
    const admin = kits.find((k) => k.name === 'files_admin')!;
    expect(admin.error).toMatch(/move_file/);
    const reader = kits.find((k) => k.name === 'graph_reader')!;
    expect(reader.error).toBeUndefined();
    expect(reader.kit?.grade).toEqual({ w: 1, d: 0 });
    const r = await svc.execution.executeScript({
      sandbox: 'kg',
      kit: 'graph_reader',
      language: 'python',
      body: 'emit_result(len(graph().data["entities"]))\n',
    });
    expect(r.data).toBe(2);
    // Traces name the tool; the script called it by its kit alias.
    expect(r.toolCalls[0]).toMatchObject({ name: 'read_graph', location: 'mcp:memory' });
  });

  it('CLI: mcp-servers list|test, tool call and exec on an MCP sandbox', async () => {
    graphOfAliceAndBob();
    const list = await cli(['mcp-servers', 'list']);
    expect(list.code).toBe(0);
    expect(list.out).toMatch(/^memory\tstdio\t.*server-memory.*\tsandboxes: kg$/m);
    const test = await cli(['mcp-servers', 'test', 'memory']);
    expect(test.code).toBe(0);
    expect(test.out).toMatch(/memory: connected in \d+ ms \(memory-server [\d.]+\), 9 tools/);
    const call = await cli([
      'tool',
      'call',
      'add',
      '--sandbox',
      'kg',
      '--args',
      '{"a": 1, "b": 2}',
      '--json',
    ]);
    expect(call.code).toBe(0);
    expect(JSON.parse(call.out)).toMatchObject({
      response: { success: true, data: 'The sum of 1 and 2 is 3.' },
    });
    const script = join(w.files, 'count.py');
    writeFileSync(script, 'g = read_graph()\nemit_result(sorted(e["name"] for e in g.data["entities"]))\n');
    const exec = await cli(['exec', script, '--sandbox', 'kg', '--json']);
    expect(exec.code).toBe(0);
    expect(JSON.parse(exec.out)).toMatchObject({ success: true, data: ['Alice', 'Bob'] });
    expect(existsSync(w.memoryFile)).toBe(true);
  });
});
