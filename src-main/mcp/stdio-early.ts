/**
 * The first moments of `toolsmith mcp` on stdio: the client's `initialize` (and `ping`) are answered from
 * here as soon as they arrive, before the MCP SDK, the service (config, tools, store) or any upstream MCP
 * server is loaded: a client that starts the server waits for a process start, not for Toolsmith. Every
 * other message is held, in order, until the real server (the SDK's, with every tool) takes the stream
 * over (`transport()`): it is then given the client's `initialize` again (so it knows the client's
 * capabilities; its answer is not sent twice), and the held messages. Initialize answers what the SDK
 * server answers (the same capabilities, server info and version negotiation), checked at the hand-over:
 * a difference is reported on stderr (a test keeps them equal).
 * Only node: modules here: this runs before anything else is loaded.
 */

import { SERVER_INSTRUCTIONS } from './mcp-meta.ts';

/** Toolsmith's MCP server as it introduces itself. */
export const MCP_SERVER_INFO = { name: 'toolsmith', version: '0.1.0' };

/**
 * What the server offers, declared up front (the SDK adds `tools` when a tool is registered; declaring
 * it here too keeps the early answer and the SDK's equal). A capability a server feature adds must be
 * listed here, or the early answer would not announce it.
 */
export const MCP_CAPABILITIES: Record<string, object> = {
  logging: {},
  tools: { listChanged: true },
  resources: { listChanged: true },
};

/** The protocol versions the SDK's server accepts, newest first (a unit test compares with the SDK's). */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];

type JsonRpc = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: unknown } & Record<
  string,
  unknown
>;

/** The SDK's Transport interface, as far as the server uses it. */
export interface EarlyTransport {
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: JsonRpc) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}

export interface EarlyStdio {
  /** The client closed its input (or it failed): the server must stop. */
  readonly ended: Promise<void>;
  /**
   * Initialize was answered, the input ended, or `ms` passed: what the CLI waits for before it loads
   * the service (loading blocks the event loop for a while: the answer must be out before).
   */
  answered(ms: number): Promise<void>;
  /** The stream handed to the real server: held messages first, then live ones. */
  transport(): EarlyTransport;
  /**
   * The command ended without a server taking over (a usage error: a --workspace that is no workspace):
   * the input is no longer read, so the process exits now with main's code instead of when the client
   * closes its input. Nothing once the server took over.
   */
  release(): void;
}

/**
 * A line of the input as a message, or the JSON-RPC error it is answered with (id null: the id of a
 * line that is no message cannot be known): -32700 for a line that is not JSON, -32600 for JSON that is
 * not one message object. A batch (an array) is refused by name: MCP 2025-06-18 removed JSON-RPC
 * batching (the SDK's server handles one message at a time; over HTTP the same body gets a 400).
 * Without the answer a client waits for a reply that never comes.
 */
function parseLine(line: string): { message: JsonRpc } | { error: { code: number; message: string } } {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (e) {
    return { error: { code: -32700, message: `Parse error: ${(e as Error).message}` } };
  }
  if (Array.isArray(v))
    return {
      error: {
        code: -32600,
        message:
          'Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed batching); send one message per line',
      },
    };
  if (v === null || typeof v !== 'object')
    return { error: { code: -32600, message: 'Invalid Request: a message is a JSON object' } };
  return { message: v as JsonRpc };
}

function write(message: unknown): Promise<void> {
  return new Promise((resolve) => {
    if (process.stdout.write(JSON.stringify(message) + '\n')) resolve();
    else process.stdout.once('drain', () => resolve());
  });
}

function initializeResult(params: unknown): Record<string, unknown> {
  const asked = (params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  const protocolVersion =
    typeof asked === 'string' && MCP_PROTOCOL_VERSIONS.includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0];
  return {
    protocolVersion,
    capabilities: MCP_CAPABILITIES,
    serverInfo: MCP_SERVER_INFO,
    instructions: SERVER_INSTRUCTIONS,
  };
}

/** JSON with sorted keys, to compare two answers. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

/**
 * The early server of this process, started on first call: by bin/start.mjs (through verb-cache.ts's
 * `startEarlyMcp`) before main.ts loads, else by main(). One per process, kept under a global key: the
 * installed command's bundle may hold this module in more than one chunk.
 */
const STARTED = Symbol.for('toolsmith.mcp.earlyStdio');

export function earlyStdio(): EarlyStdio {
  const g = globalThis as { [STARTED]?: EarlyStdio };
  g[STARTED] ??= start();
  return g[STARTED];
}

function start(): EarlyStdio {
  const held: JsonRpc[] = [];
  let initialize: JsonRpc | undefined;
  let early: Record<string, unknown> | undefined;
  let live: EarlyTransport | undefined;
  let endedResolve!: () => void;
  const ended = new Promise<void>((resolve) => (endedResolve = resolve));
  let answeredResolve!: () => void;
  const answered = new Promise<void>((resolve) => (answeredResolve = resolve));
  let buffer = '';

  const receive = (m: JsonRpc) => {
    if (live) return live.onmessage?.(m);
    if (m.method === 'initialize' && m.id !== undefined && !initialize) {
      initialize = m;
      early = initializeResult(m.params);
      void write({ jsonrpc: '2.0', id: m.id, result: early }).then(answeredResolve);
      return;
    }
    if (m.method === 'ping' && m.id !== undefined) {
      void write({ jsonrpc: '2.0', id: m.id, result: {} });
      return;
    }
    held.push(m);
  };
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (!line.trim()) continue;
      const parsed = parseLine(line);
      if ('error' in parsed) {
        // Answered here, before and after the hand-over alike (the SDK's server never sees the line), and
        // told on stderr too: a client may drop an answer whose id is null.
        void write({ jsonrpc: '2.0', id: null, error: parsed.error });
        process.stderr.write(`toolsmith mcp: a line of the input was refused: ${parsed.error.message}\n`);
        live?.onerror?.(new Error(parsed.error.message));
        continue;
      }
      receive(parsed.message);
    }
  };
  let handedOff = false;
  let waitUntil: number | undefined;
  const end = () => {
    // Closed before the server took over: it has started nothing (calls are held), so nothing is left
    // to stop; the process ends at once instead of loading the service first.
    // (with the exit code main set meanwhile: a usage error, e.g. a --workspace that is no workspace)
    if (!handedOff) process.exit(process.exitCode ?? 0);
    endedResolve();
  };
  process.stdin.on('data', onData);
  process.stdin.once('end', end);
  process.stdin.once('error', end);
  process.stdin.once('close', end);

  return {
    release() {
      if (handedOff) return;
      handedOff = true;
      process.stdin.off('data', onData);
      process.stdin.off('end', end);
      process.stdin.off('error', end);
      process.stdin.off('close', end);
      process.stdin.destroy();
      endedResolve();
    },
    ended,
    // (one wait per process: bin/start.mjs and main() both ask, and the second only waits what is left)
    answered: (ms) => {
      waitUntil ??= Date.now() + ms;
      const left = Math.max(0, waitUntil - Date.now());
      return Promise.race([
        answered,
        ended,
        new Promise<void>((resolve) => setTimeout(resolve, left).unref()),
      ]);
    },
    transport(): EarlyTransport {
      handedOff = true;
      let dropId: string | number | undefined;
      const t: EarlyTransport = {
        async start() {
          live = t;
          // The real server learns the client from its initialize; its answer was sent already.
          if (initialize) {
            dropId = initialize.id;
            t.onmessage?.(initialize);
          }
          for (const m of held.splice(0)) t.onmessage?.(m);
        },
        async send(message) {
          const m = message as { id?: unknown; result?: Record<string, unknown> };
          if (dropId !== undefined && m.id === dropId && 'result' in m) {
            dropId = undefined;
            const same = canonical(m.result) === canonical(early);
            if (!same)
              process.stderr.write(
                `toolsmith mcp: the early initialize answer differs from the server's: ${JSON.stringify(early)} vs ${JSON.stringify(m.result)}\n`,
              );
            return;
          }
          await write(message);
        },
        async close() {
          process.stdin.off('data', onData);
          live = undefined;
          t.onclose?.();
        },
      };
      return t;
    },
  };
}
