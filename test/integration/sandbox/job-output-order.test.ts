/**
 * The order of what a job writes, as the host receives it. A Python job's process prints to one pipe (its
 * stdout/stderr) and writes its protocol lines (emit, trace, tool_call, done) to another; the worker read
 * the two apart, so lines printed just before an `emit_intermediate` or a tool call reached the host after
 * it (and lines printed just after, before it). Now a job's process waits, before each protocol line, until
 * the worker has taken what the output pipe holds, and the worker takes the protocol lines waiting before
 * each read of the output: the live events keep the order the script wrote in. Real Docker (runc and
 * gVisor) and real bubblewrap (the process level); the JS runtime's console.log travels with its emits
 * on one channel.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import type { LiveExecutionEvent } from '../../../src-main/core/ports/executor.ts';
import type { WorkerFactory } from '../../../src-main/infra/sandbox/pool.ts';
import { bubblewrapFactory, dockerFactory } from '../../support/sandbox.ts';

const TOOLS = `@tool(grade=(0, 0))
def ping(i: int) -> ToolResponse:
    """Answer the number it is given, saying so on stdout."""
    print(f"t{i}")
    return ToolResponse(success=True, data=i)
`;

const ROUNDS = 200;
// Several lines before each emit: the output pipe holds something whenever the protocol line is written.
const PYTHON = `for i in range(${ROUNDS}):
    for k in range(5):
        print(f"a{i}.{k} " + "x" * 100)
    emit_intermediate(i)
    print(f"b{i}")
    ping(i=i)
    print(f"c{i}")
emit_result(${ROUNDS})
`;

/** What the script wrote, in its order, as the sequence of names the live events are turned into. */
function expectedPython(): string[] {
  const out: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    for (let k = 0; k < 5; k++) out.push(`a${i}.${k} ${'x'.repeat(100)}`);
    out.push(`intermediate ${i}`, `b${i}`, `t${i}`, `call ping ${i}`, `c${i}`);
  }
  return out;
}

function seen(events: LiveExecutionEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === 'tool_call') return [`call ${e.trace.name} ${JSON.stringify(e.trace.args['i'])}`];
    if (e.type !== 'emit') return [];
    if (e.kind === 'intermediate') return [`intermediate ${JSON.stringify(e.data)}`];
    return String(e.data).split('\n');
  });
}

function backend(factory: WorkerFactory): SandboxBackend {
  return new SandboxBackend({
    factory,
    pool: { minSize: 1, maxSize: 1, maxJobsPerWorker: 1000, idleMs: 60_000, queueTimeoutMs: 60_000 },
    maxOutputBytes: 4 * 1024 * 1024,
    specFor: (name, runtime) => ({ name, runtime, toolsSource: TOOLS, hostTools: [], credentials: {} }),
    hostTools: {},
  });
}

async function run(b: SandboxBackend, language: 'python' | 'js', code: string) {
  const events: LiveExecutionEvent[] = [];
  const result = await b.execute({
    sandbox: 'order',
    language,
    code,
    bodyStartLine: 1,
    tools: { ping: 'ping' },
    timeoutMs: 120_000,
    onEvent: (e) => events.push(e),
  });
  return { result, events };
}

const LEVELS = [
  ['docker', () => dockerFactory()],
  ['gvisor', () => dockerFactory({ runtime: 'runsc' })],
  ['process (bubblewrap)', async () => bubblewrapFactory()],
] as const;

describe.each(LEVELS)('the order of a Python job output, %s', (_name, make) => {
  let factory: Awaited<ReturnType<(typeof LEVELS)[number][1]>> | undefined;
  let b: SandboxBackend | undefined;
  afterAll(async () => {
    await b?.dispose();
    await factory?.dispose();
  });

  it('lines printed around emits and tool calls keep the order the script wrote them in', async () => {
    factory = await make();
    b = backend(factory);
    // Three runs: a race that the old worker lost sometimes would pass now and then.
    for (let n = 0; n < 3; n++) {
      const { result, events } = await run(b, 'python', PYTHON);
      expect(result.success, JSON.stringify(result.error)).toBe(true);
      expect(result.data).toBe(ROUNDS);
      expect(seen(events)).toEqual(expectedPython());
    }
  }, 300_000);
});

describe('the order of a JS job output, docker', () => {
  let factory: Awaited<ReturnType<typeof dockerFactory>> | undefined;
  let b: SandboxBackend | undefined;
  afterAll(async () => {
    await b?.dispose();
    await factory?.dispose();
  });

  it('console.log around emitIntermediate keeps its order (one channel)', async () => {
    factory = await dockerFactory();
    b = backend(factory);
    const code = `for (let i = 0; i < ${ROUNDS}; i++) {
  for (let k = 0; k < 5; k++) console.log('a' + i + '.' + k + ' ' + 'x'.repeat(100));
  emitIntermediate(i);
  console.log('b' + i);
}
emitResult(${ROUNDS});
`;
    const { result, events } = await run(b, 'js', code);
    expect(result.success, JSON.stringify(result.error)).toBe(true);
    const want: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      for (let k = 0; k < 5; k++) want.push(`a${i}.${k} ${'x'.repeat(100)}`);
      want.push(`intermediate ${i}`, `b${i}`);
    }
    expect(seen(events)).toEqual(want);
  }, 300_000);
});
