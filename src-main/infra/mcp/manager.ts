/**
 * Connections to the workspace's MCP servers, owned by the service: each server is connected on first
 * use with the official SDK client (stdio or Streamable HTTP), its tool list cached, reconnected when the
 * connection broke, and closed with the service. Every request has a time limit and takes the caller's
 * AbortSignal (a run's cancellation), so a server that does not start or answer gives an error, never a hang.
 */
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Ajv, ValidateFunction } from 'ajv';
import type { McpCallResult, McpToolListing } from '../../core/tools/mcp.ts';
import { errorMessage } from '../../core/errors.ts';
import { clipWords } from '../../core/text/clip.ts';
import {
  connectsOf,
  fetchThrough,
  ownProxyDispatcher,
  proxyFailure,
  proxyFor,
  proxyWaitWords,
} from '../net/proxy-env.ts';
import type { OwnDispatcher } from '../net/proxy-env.ts';

export interface McpServerDef {
  command?: string | undefined;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
  url?: string | undefined;
  headers: Record<string, string>;
  timeout_ms: number;
  /** Starting: the process or connection, initialize and the first tool list (default timeout_ms). */
  startup_timeout_ms?: number | undefined;
  description?: string;
}

export type McpState = 'idle' | 'connecting' | 'connected' | 'error' | 'closed';

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http';
  /** The command line or URL (no secrets: env and headers are references). */
  target: string;
  state: McpState;
  error?: string;
  server?: { name: string; version: string };
  tools?: number;
  /** Times the connection was (re)established. */
  connects: number;
}

/** A command a stdio MCP server starts on the host, as a person confirms it. */
export interface HostCommand {
  server: string;
  command: string;
  args: string[];
  cwd: string;
  /** Names of the environment variables it is given (values are not shown). */
  env: string[];
}

export class McpError extends Error {
  override name = 'McpError';
  readonly server: string;
  readonly code: 'mcp_unavailable' | 'mcp_timeout' | 'mcp_invalid_args' | 'mcp_unknown_tool' | 'mcp_error';
  /** Set when the server is remembered as down (its connect failed; not tried again before `retryAt`). */
  readonly down: McpDown | undefined;
  constructor(server: string, code: McpError['code'], message: string, down?: McpDown) {
    super(message);
    this.server = server;
    this.code = code;
    this.down = down;
  }
}

/**
 * A server whose connect failed, remembered so that look-ups answer at once instead of trying it again
 * and waiting out its whole timeout each time (McpManager's `backoff`).
 */
export interface McpDown {
  /** Why the last try failed (the message `toolsmith mcp-servers test NAME` prints). */
  error: string;
  /** When the first failed try of this run of failures ended (epoch ms). */
  since: number;
  /** Failed tries in a row. */
  failures: number;
  /** Not tried again before this (epoch ms): in the background then, or by the next use after it. */
  retryAt: number;
}

/** A server a look-up could not reach: its cause; since when and when it is tried again when remembered. */
export interface McpUnavailable {
  server: string;
  error: string;
  /** ISO time of the first failed try of this run of failures. */
  since?: string;
  /** ISO time it is tried again (in the background in a long-lived process, else by the next use). */
  retry_at?: string;
}

/** How long a failed connect is remembered: the first wait, doubled after each failed try up to `maxMs`. */
export interface McpBackoff {
  firstMs: number;
  maxMs: number;
  /**
   * Whether the server is tried again by itself when its wait is over (a long-lived process: the MCP
   * server, serve, the app), so its tools come back without anyone asking; else by the next use after it.
   */
  background: (def: McpServerDef) => boolean;
}

/** `first` (default 5 s, `$TOOLSMITH_MCP_RETRY_MS`), doubled after each failure, at most 60 s (or `first`). */
export function backoffFromEnv(background: McpBackoff['background']): McpBackoff {
  const raw = process.env['TOOLSMITH_MCP_RETRY_MS'];
  const v = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  const firstMs = Number.isFinite(v) && v > 0 ? v : 5_000;
  return { firstMs, maxMs: Math.max(60_000, firstMs), background };
}

const clockTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

/** `unavailable since T (N failed tries); tried again at T2`, for a message. */
export const downWords = (d: McpDown): string =>
  `unavailable since ${clockTime(d.since)} (${d.failures} failed ${d.failures === 1 ? 'try' : 'tries'}); tried again at ${clockTime(d.retryAt)}`;

interface Conn {
  client: Client;
  transport: Transport;
  tools: McpToolListing[];
  alive: boolean;
  /** What the server sent that is not MCP (a line that is not JSON-RPC...), newest last, bounded. */
  garbage: string[];
  /** Count of garbage seen so far (a call compares it before and after). */
  garbageSeen: number;
  /** Set when the server sent one message longer than MAX_MCP_MESSAGE_BYTES: the connection was closed. */
  tooLarge: { bytes?: number };
  /** Over HTTP through the environment's proxy: the connection's own dispatcher (its connects' words). */
  dispatcher?: OwnDispatcher;
}

/**
 * The longest message an upstream MCP server may send (over stdio one JSON-RPC line; over HTTP one JSON
 * body or one event of a stream). A larger one is
 * cut short as it arrives (the connection is closed, the call told why), not buffered until the call's
 * time limit ends it with "did not answer".
 */
export const MAX_MCP_MESSAGE_BYTES = 4 * 1024 * 1024;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * Counts the bytes of the line the server is sending on stdout (the transport keeps its child process to
 * itself); `over(bytes)` is called once when a line passes the limit.
 */
function watchLineSize(transport: Transport, over: (bytes: number) => void): void {
  const out = (transport as unknown as { _process?: { stdout?: NodeJS.ReadableStream | null } })._process
    ?.stdout;
  if (!out) return;
  let line = 0;
  let told = false;
  out.on('data', (chunk: Buffer) => {
    const nl = chunk.lastIndexOf(0x0a);
    line = nl >= 0 ? chunk.length - nl - 1 : line + chunk.length;
    if (!told && line > MAX_MCP_MESSAGE_BYTES) {
      told = true;
      over(line);
    }
  });
}

/**
 * A fetch for an upstream server over HTTP whose answers count their bytes as they arrive: a JSON body is
 * one message, an event stream's messages end at a blank line. `over(bytes)` is called once when one
 * message passes MAX_MCP_MESSAGE_BYTES, and that answer's body then ends with an error (nothing more
 * of it is read or kept).
 */
function sizeWatchingFetch(over: (bytes: number) => void, dispatcher?: OwnDispatcher): typeof fetch {
  return async (input, init) => {
    const res = await (dispatcher ? fetchThrough(dispatcher, input, init) : fetch(input, init));
    if (!res.body) return res;
    const stream = /text\/event-stream/i.test(res.headers.get('content-type') ?? '');
    let message = 0;
    let last = 0;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, ctl) {
          if (stream) {
            // The end of the last event in this chunk (LF LF), the previous chunk's last byte included.
            let end = -1;
            for (let i = chunk.length - 1; i >= 0; i--) {
              const prev = i > 0 ? chunk[i - 1] : last;
              if (chunk[i] === 0x0a && prev === 0x0a) {
                end = i;
                break;
              }
            }
            message = end >= 0 ? chunk.length - end - 1 : message + chunk.length;
          } else message += chunk.length;
          if (chunk.length) last = chunk[chunk.length - 1] as number;
          if (message > MAX_MCP_MESSAGE_BYTES) {
            over(message);
            ctl.error(new Error(`an MCP message above ${mb(MAX_MCP_MESSAGE_BYTES)}`));
            return;
          }
          ctl.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** `env:VAR` -> the host's value (missing: an error naming the variable); other strings are literal. */
function resolveRef(server: string, what: string, v: string): string {
  if (!v.startsWith('env:')) return v;
  const name = v.slice(4);
  const value = process.env[name];
  if (value === undefined)
    throw new McpError(
      server,
      'mcp_unavailable',
      `MCP server ${server}: ${what} needs $${name}, which is not set`,
    );
  return value;
}

const describe = (e: unknown): string => {
  // A result of the wrong shape: the SDK's schema issues, said in a line instead of a JSON dump.
  const issues = (e as { issues?: unknown } | null)?.issues;
  if (Array.isArray(issues) && issues.length > 0)
    return `an answer of the wrong shape: ${issues
      .slice(0, 3)
      .map(
        (i: { path?: PropertyKey[]; message?: string }) =>
          `${(i.path ?? []).map(String).join('.') || '(root)'}: ${i.message ?? '?'}`,
      )
      .join('; ')}`;
  const msg = errorMessage(e);
  // fetch says only "fetch failed" for a server that is down or a host that is not found: the reason
  // (ECONNREFUSED 127.0.0.1:8080, ENOTFOUND host) is its cause.
  const cause = (e as { cause?: unknown } | null)?.cause;
  if (msg === 'fetch failed' && cause instanceof Error && cause.message)
    return `could not reach it (${cause.message})`;
  // The SDK puts the issues in its message as JSON ("Invalid tools/call result: [...]").
  const m = /Invalid ([\w/]+) result:\s*(\[[\s\S]*\])\s*$/.exec(msg);
  if (m)
    try {
      return `${describe({ issues: JSON.parse(m[2]!) as unknown[] })} (in its ${m[1]} result)`;
    } catch {
      /* not JSON after all */
    }
  return msg;
};

/**
 * For a server over HTTP that the environment's proxy stands in front of (a wait that ran out may be the
 * proxy's): `: the proxy URL (from $VAR) ... did not answer the request for a tunnel ...` when the proxy
 * never answered, else `; its requests go through the proxy URL (from $VAR)`; '' without a proxy.
 * `dispatcher`: the connection's own, whose connects alone count (another connection to the same host
 * may wait for something else).
 */
const viaProxy = (def: { url?: string | undefined } | undefined, dispatcher?: OwnDispatcher): string => {
  const proxy = def?.url ? proxyFor(def.url) : undefined;
  return proxy && def?.url ? proxyWaitWords(def.url, proxy, connectsOf(dispatcher)) : '';
};

/** `describe`, but a failure of the proxy in front of a server over HTTP names the proxy and its cause. */
const describeFor = (def: { url?: string | undefined } | undefined, e: unknown): string => {
  const proxy = def?.url ? proxyFor(def.url) : undefined;
  const byProxy = proxy ? proxyFailure(e, proxy) : undefined;
  return byProxy ? `could not reach it: ${byProxy.reason}` : describe(e);
};

export class McpManager {
  private defs: Record<string, McpServerDef>;
  private readonly conns = new Map<string, Promise<Conn>>();
  /** Transports of connections still being made: closing the manager ends them, never waits them out. */
  private readonly connecting = new Map<string, Transport>();
  private readonly status_ = new Map<string, McpServerStatus>();
  private readonly validators = new Map<string, ValidateFunction>();
  /** Loaded with the SDK on the first connection (CLI verbs that never connect do not pay for them). */
  private ajv: Ajv | undefined;
  private closed = false;
  /** Increments whenever a listing is (re)loaded: registries rebuild their MCP tools when it moves. */
  version = 0;
  private readonly listeners = new Set<() => void>();

  /**
   * Calls `listener` after any server's state or listing changed (connecting, connected, failed, a new
   * tool list); returns the unsubscribe function. The MCP server's `code` manual is rebuilt from it.
   */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) {
      try {
        l();
      } catch {
        // A listener's failure is its own; the connection goes on.
      }
    }
  }

  /**
   * Asked before a stdio server's command starts on the host (the front end's confirmation: a native
   * dialog on the desktop, a start flag for the browser front end); throws to refuse. Unset: allowed
   * (the CLI and the MCP server run the config of the person who started them).
   */
  private readonly approve: ((c: HostCommand) => Promise<void>) | undefined;

  /** Unset: a failed connect is not remembered (the next use tries again at once). */
  private readonly backoff: McpBackoff | undefined;
  /** Servers whose last connect failed (only with `backoff`), and their timers of a background try. */
  private readonly down = new Map<string, McpDown>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();

  constructor(
    defs: Record<string, McpServerDef>,
    opts: { approve?: (c: HostCommand) => Promise<void>; backoff?: McpBackoff } = {},
  ) {
    this.defs = { ...defs };
    this.approve = opts.approve;
    this.backoff = opts.backoff;
  }

  /** The server remembered as down (its last connect failed), or undefined. */
  unavailable(name: string): McpDown | undefined {
    return this.down.get(name);
  }

  /** Forgets that a server was down (its definition changed, it connected, or the manager closed). */
  private forgetDown(name: string): void {
    this.down.delete(name);
    clearTimeout(this.retryTimers.get(name));
    this.retryTimers.delete(name);
  }

  /** Remembers a failed connect; schedules the background try when the backoff allows one. */
  private rememberDown(name: string, def: McpServerDef, error: string): void {
    const b = this.backoff;
    if (!b || this.closed || !this.defs[name]) return;
    const prev = this.down.get(name);
    const failures = (prev?.failures ?? 0) + 1;
    const wait = Math.min(b.maxMs, b.firstMs * 2 ** (failures - 1));
    const now = Date.now();
    this.down.set(name, { error, since: prev?.since ?? now, failures, retryAt: now + wait });
    clearTimeout(this.retryTimers.get(name));
    this.retryTimers.delete(name);
    if (!b.background(def)) return;
    const timer = setTimeout(() => {
      this.retryTimers.delete(name);
      if (this.closed || !this.defs[name]) return;
      // Failures are remembered (and the next try scheduled) by connect itself.
      this.connection(name, { retry: true }).catch(() => undefined);
    }, wait);
    // A one-shot command is not held open by it.
    timer.unref();
    this.retryTimers.set(name, timer);
  }

  names(): string[] {
    return Object.keys(this.defs).sort();
  }

  def(name: string): McpServerDef | undefined {
    return this.defs[name];
  }

  /** Adds or replaces a server definition; an open connection to the old one is closed. */
  async setServer(name: string, def: McpServerDef): Promise<void> {
    this.defs[name] = def;
    await this.disconnect(name);
    this.forgetDown(name);
    this.status_.delete(name);
    this.version++;
    this.changed();
  }

  /** Forgets a server definition (removed from the config): its connection is closed. */
  async removeServer(name: string): Promise<void> {
    if (!this.defs[name]) return;
    delete this.defs[name];
    await this.disconnect(name);
    this.forgetDown(name);
    this.status_.delete(name);
    this.version++;
    this.changed();
  }

  /**
   * Replaces every definition (the config file changed): servers removed or changed are disconnected,
   * unchanged ones keep their connection. Returns the names whose definition changed.
   */
  async setDefs(defs: Record<string, McpServerDef>): Promise<string[]> {
    const changed = new Set<string>();
    for (const name of new Set([...Object.keys(this.defs), ...Object.keys(defs)]))
      if (JSON.stringify(this.defs[name]) !== JSON.stringify(defs[name])) changed.add(name);
    this.defs = { ...defs };
    for (const name of changed) {
      await this.disconnect(name);
      this.forgetDown(name);
      this.status_.delete(name);
    }
    if (changed.size > 0) this.version++;
    return [...changed].sort();
  }

  private target(def: McpServerDef): string {
    return def.url ?? [def.command, ...def.args].join(' ');
  }

  status(name: string): McpServerStatus {
    const def = this.defs[name];
    if (!def) throw new McpError(name, 'mcp_unavailable', this.unknown(name));
    return (
      this.status_.get(name) ?? {
        name,
        transport: def.url ? 'http' : 'stdio',
        target: this.target(def),
        state: 'idle',
        connects: 0,
      }
    );
  }

  private setStatus(name: string, patch: Partial<McpServerStatus>): void {
    const s = { ...this.status(name), ...patch };
    if (patch.state && patch.state !== 'error') delete s.error;
    this.status_.set(name, s);
    this.changed();
  }

  private unknown(name: string): string {
    return `no MCP server ${name}; declared: ${this.names().join(', ') || 'none'} ([mcp_servers.NAME] in .toolsmith/config.toml)`;
  }

  /**
   * A live connection (connecting, or reconnecting after the old one broke). A server remembered as
   * down (`backoff`) is answered at once with why and since when, also while a background try is under
   * way; `force` tries it now (a person's explicit test), `retry` is the background try.
   */
  private connection(name: string, opts: { force?: boolean; retry?: boolean } = {}): Promise<Conn> {
    if (this.closed)
      return Promise.reject(new McpError(name, 'mcp_unavailable', 'the MCP connections are closed'));
    const def = this.defs[name];
    if (!def) return Promise.reject(new McpError(name, 'mcp_unavailable', this.unknown(name)));
    const down = this.down.get(name);
    const trying = this.conns.get(name);
    if (down && !opts.force && !(opts.retry && !trying) && (trying || Date.now() < down.retryAt))
      return Promise.reject(
        new McpError(name, 'mcp_unavailable', `${down.error} (${downWords(down)})`, down),
      );
    if (trying) return trying;
    const p = this.connect(name, def, down !== undefined);
    this.conns.set(name, p);
    p.catch(() => {
      if (this.conns.get(name) === p) this.conns.delete(name);
    });
    return p;
  }

  /** `quiet`: a try of a server known to be down keeps its state `error` until it answers (no flicker). */
  private async connect(name: string, def: McpServerDef, quiet = false): Promise<Conn> {
    if (!quiet) this.setStatus(name, { state: 'connecting' });
    const [
      { Client },
      { getDefaultEnvironment, StdioClientTransport },
      { StreamableHTTPClientTransport },
      ajv,
      { SUPPORTED_PROTOCOL_VERSIONS },
    ] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
      import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      import('ajv'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    this.ajv ??= new ajv.Ajv({ allErrors: true, strict: false });
    let transport: Transport;
    let dispatcher: OwnDispatcher | undefined;
    const stderr: string[] = [];
    const tooLarge: { bytes?: number } = {};
    // How a stdio server's process ended by itself (not closed by Toolsmith): the SDK says only "MCP error
    // -32000: Connection closed" for a server that exited before it answered.
    const ended: Ended = {};
    try {
      if (def.url) {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(def.headers)) headers[k] = resolveRef(name, `header ${k}`, v);
        // Through the environment's proxy, the connection's requests have a dispatcher of their own,
        // destroyed as the transport closes: a tunnel the proxy never answered is ended with it, where
        // aborting the request left its socket holding the process open for undici's 300 s.
        dispatcher = ownProxyDispatcher();
        const http = new StreamableHTTPClientTransport(new URL(def.url), {
          requestInit: { headers },
          // An answer above the limit is cut short as it arrives and the connection closed (the call
          // then says why), as for stdio below: not buffered until the call's time limit.
          fetch: sizeWatchingFetch((bytes) => {
            if (tooLarge.bytes !== undefined) return;
            tooLarge.bytes = bytes;
            void http.close().catch(() => {});
          }, dispatcher),
        });
        const own = dispatcher;
        if (own) {
          const close = http.close.bind(http);
          http.close = async () => {
            try {
              await close();
            } finally {
              await own.destroy().catch(() => undefined);
            }
          };
        }
        transport = http;
      } else {
        await this.approve?.({
          server: name,
          command: def.command!,
          args: [...def.args],
          cwd: def.cwd ?? process.cwd(),
          env: Object.keys(def.env).sort(),
        });
        const env: Record<string, string> = { ...getDefaultEnvironment() };
        for (const [k, v] of Object.entries(def.env)) env[k] = resolveRef(name, `env ${k}`, v);
        const stdio = new StdioClientTransport({
          command: def.command!,
          args: def.args,
          env,
          ...(def.cwd ? { cwd: def.cwd } : {}),
          stderr: 'pipe',
        });
        stdio.stderr?.on('data', (b: Buffer) => {
          stderr.push(b.toString());
          if (stderr.length > 20) stderr.shift();
        });
        const start = stdio.start.bind(stdio);
        stdio.start = async () => {
          await start();
          // (the SDK keeps its child process private: read once, right after the spawn)
          (stdio as unknown as { _process?: ChildProcess })._process?.once('exit', (code, signal) => {
            if (!ended.closing) Object.assign(ended, { code, signal });
          });
          watchLineSize(stdio, (bytes) => {
            tooLarge.bytes = bytes;
            void stdio.close().catch(() => {});
          });
        };
        const close = stdio.close.bind(stdio);
        stdio.close = async () => {
          ended.closing = true;
          await close();
        };
        transport = stdio;
      }
    } catch (e) {
      // Not remembered as down: nothing was tried (a variable not set, a start the person refused),
      // so trying again costs nothing and sees a fix at once.
      this.setStatus(name, { state: 'error', error: describeFor(def, e) });
      throw e instanceof McpError ? e : new McpError(name, 'mcp_unavailable', describeFor(def, e));
    }
    const client = new Client({ name: 'toolsmith', version: '0.1.0' });
    const conn: Conn = {
      client,
      transport,
      tools: [],
      alive: true,
      garbage: [],
      garbageSeen: 0,
      tooLarge,
      ...(dispatcher ? { dispatcher } : {}),
    };
    // The transport reports lines it could not parse as MCP here (they never answer a request).
    client.onerror = (e) => {
      conn.garbageSeen++;
      conn.garbage.push(describe(e).slice(0, 300));
      if (conn.garbage.length > 5) conn.garbage.shift();
    };
    client.onclose = () => {
      conn.alive = false;
      if (this.conns.get(name) && this.status_.get(name)?.state === 'connected')
        this.setStatus(name, {
          state: 'error',
          error: `${exitWords(ended) ?? 'the server closed the connection'}${tail(stderr)}`,
        });
      void this.dropIfCurrent(name, conn);
    };
    const timeout = def.timeout_ms;
    const startup = def.startup_timeout_ms ?? timeout;
    this.connecting.set(name, transport);
    // What the server had answered when a start failed (a process that exits after initialize, at its
    // tools/list, did answer initialize).
    let answered = false;
    try {
      await withTimeout(
        client.connect(transport, { timeout: startup }),
        startup,
        () =>
          new McpError(
            name,
            'mcp_timeout',
            `MCP server ${name} did not answer initialize within ${startup} ms${viaProxy(def, dispatcher)}`,
          ),
      );
      answersAfterProgress(transport);
      answered = true;
      conn.tools = await listAllTools(client, startup);
      this.cache.set(name, conn.tools);
      this.version++;
      // A server that announces a new tool list is listed again (every page); registries and the
      // MCP server's `code` manual follow through `version` and `subscribe`.
      const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
      // Announcements are coalesced: one listing at a time, and the announcements that come while it
      // runs ask for one more after it (the latest list is what counts). A server that sends
      // list_changed in a loop (a storm of thousands) costs a few listings, not one tools/list request
      // and one rebuild of every registry per notification.
      const state: { listing: 'idle' | 'running' | 'again' } = { listing: 'idle' };
      const announcedAgain = () => state.listing === 'again'; // (set by the handler while a listing runs)
      const relist = async (): Promise<void> => {
        state.listing = 'running';
        try {
          while (conn.alive) {
            let tools: McpToolListing[];
            try {
              tools = await listAllTools(client, timeout);
            } catch {
              return; // the next call reconnects and lists again
            }
            if (this.conns.get(name) === undefined) return;
            conn.tools = tools;
            this.cache.set(name, conn.tools);
            this.version++;
            this.setStatus(name, { tools: conn.tools.length });
            if (!announcedAgain()) return;
            state.listing = 'running'; // announced again meanwhile: this list may already be old
          }
        } finally {
          state.listing = 'idle';
        }
      };
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (!conn.alive) return;
        if (state.listing !== 'idle') state.listing = 'again';
        else void relist();
      });
    } catch (e) {
      conn.alive = false;
      await client.close().catch(() => undefined);
      // The SDK says only "Server's protocol version is not supported: X": which versions the client
      // speaks, and what to do, are the rest of the cause.
      const version = /^Server's protocol version is not supported: (.*)$/.exec(errorMessage(e))?.[1];
      const exit = /Connection closed/.test(errorMessage(e)) ? exitWords(ended) : undefined;
      const why =
        exit !== undefined
          ? `${exit} ${answered ? 'after it answered initialize, before it answered tools/list' : 'before it answered initialize'}`
          : version === undefined
            ? describeFor(def, e)
            : `it answered initialize with MCP protocol version ${JSON.stringify(version)}, which Toolsmith's MCP client does not speak (it speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}); run a version of the server that speaks one of these, or a Toolsmith that speaks ${JSON.stringify(version)}`;
      const base =
        e instanceof McpError
          ? e.message
          : `MCP server ${name} (${this.target(def)}) failed to start: ${why}`;
      const message = base + tail(stderr);
      this.setStatus(name, { state: 'error', error: message });
      this.rememberDown(name, def, message);
      throw new McpError(name, e instanceof McpError ? e.code : 'mcp_unavailable', message);
    } finally {
      if (this.connecting.get(name) === transport) this.connecting.delete(name);
    }
    this.forgetDown(name);
    const v = client.getServerVersion();
    this.setStatus(name, {
      state: 'connected',
      connects: this.status(name).connects + 1,
      tools: conn.tools.length,
      ...(v ? { server: { name: v.name, version: v.version } } : {}),
    });
    for (const key of [...this.validators.keys()])
      if (key.startsWith(`${name}\0`)) this.validators.delete(key);
    return conn;
  }

  private async dropIfCurrent(name: string, conn: Conn): Promise<void> {
    const current = this.conns.get(name);
    if (!current) return;
    const c = await current.catch(() => undefined);
    if (c === conn) this.conns.delete(name);
  }

  /**
   * The server's tools (connecting first when needed). A server remembered as down fails at once,
   * unless `force` (a person testing it: tried now).
   */
  async listTools(name: string, opts: { force?: boolean } = {}): Promise<McpToolListing[]> {
    return (await this.connection(name, opts)).tools;
  }

  /** The cached listing, when connected once (sync: the tools manual is built from it). */
  cachedTools(name: string): McpToolListing[] | undefined {
    return this.cache.get(name);
  }
  private readonly cache = new Map<string, McpToolListing[]>();

  /** Connects (or reuses the connection) and caches the listing; errors are in `status(name)`. */
  async refresh(name: string): Promise<McpToolListing[]> {
    return this.listTools(name);
  }

  /** Checks `args` against the tool's input schema; returns the problems, or undefined when they fit. */
  checkArgs(name: string, tool: McpToolListing, args: unknown): string | undefined {
    const key = `${name}\0${tool.name}`;
    let v = this.validators.get(key);
    if (!v) {
      if (!this.ajv) return undefined; // not connected yet: nothing to call either
      try {
        v = this.ajv.compile(tool.inputSchema);
      } catch {
        return undefined; // a schema ajv cannot compile: the server checks
      }
      this.validators.set(key, v);
    }
    if (v(args)) return undefined;
    return (v.errors ?? [])
      .map((e) => {
        const where = e.instancePath ? `${e.instancePath.slice(1).replace(/\//g, '.')}` : 'arguments';
        const extra =
          e.keyword === 'enum' && Array.isArray((e.params as { allowedValues?: unknown[] }).allowedValues)
            ? ` (${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)})`
            : e.keyword === 'additionalProperties'
              ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
              : '';
        return `${where} ${e.message ?? 'is invalid'}${extra}`;
      })
      .join('; ');
  }

  /**
   * Calls a tool: arguments checked against its input schema first (refused without a call when they do
   * not fit), then `tools/call` with the server's time limit and the caller's signal. A broken connection
   * is reconnected once before the call is given up.
   */
  async callTool(
    name: string,
    tool: string,
    args: Record<string, unknown>,
    opts: {
      signal?: AbortSignal;
      timeoutMs?: number;
      /** Hears the server's notifications/progress for this call (relayed to whoever asked). */
      onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
    } = {},
  ): Promise<McpCallResult> {
    let conn = await this.connection(name);
    if (!conn.alive) {
      await this.dropIfCurrent(name, conn);
      conn = await this.connection(name);
    }
    const listing = conn.tools.find((t) => t.name === tool);
    if (!listing)
      throw new McpError(
        name,
        'mcp_unknown_tool',
        `MCP server ${name} has no tool ${tool}; it has: ${conn.tools.map((t) => t.name).join(', ')}`,
      );
    const bad = this.checkArgs(name, listing, args);
    if (bad)
      throw new McpError(
        name,
        'mcp_invalid_args',
        `invalid arguments for ${name}.${tool} (not sent): ${bad}`,
      );
    const timeout = opts.timeoutMs ?? this.defs[name]!.timeout_ms;
    const garbageBefore = conn.garbageSeen;
    try {
      // Asks for progress (a progressToken is sent with an `onprogress`): a server that reports
      // progress keeps the call alive, the time limit counting from its last report; the reports are
      // passed on (the MCP server relays them to its own client).
      const onProgress = opts.onProgress;
      const r = await conn.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          if (!onProgress) return;
          try {
            onProgress({
              progress: p.progress,
              ...(p.total !== undefined ? { total: p.total } : {}),
              ...(typeof p.message === 'string' ? { message: p.message } : {}),
            });
          } catch {
            // a listener's failure never fails the call
          }
        },
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return r as McpCallResult;
    } catch (e) {
      const msg = describeFor(this.defs[name], e);
      if (opts.signal?.aborted) throw new McpError(name, 'mcp_error', `${name}.${tool}: cancelled`);
      if (conn.tooLarge.bytes !== undefined)
        throw new McpError(
          name,
          'mcp_error',
          `MCP server ${name} answered ${tool} with more than ${mb(conn.tooLarge.bytes)}: the answer is too large (the limit is ${mb(MAX_MCP_MESSAGE_BYTES)} per message); the connection was closed and is made again on the next call`,
        );
      if (conn.garbageSeen > garbageBefore)
        throw new McpError(
          name,
          'mcp_error',
          `MCP server ${name} sent output that is not MCP (JSON-RPC) instead of answering ${tool}: ${conn.garbage.at(-1) ?? ''}`,
        );
      if (/timed out|timeout/i.test(msg))
        throw new McpError(
          name,
          'mcp_timeout',
          `MCP server ${name} did not answer ${tool} within ${timeout} ms${viaProxy(this.defs[name], conn.dispatcher)}`,
        );
      if (!conn.alive || /closed/i.test(msg)) {
        const st = this.status(name);
        throw new McpError(
          name,
          'mcp_unavailable',
          `MCP server ${name} went away during ${tool}: ${st.error ?? msg} (it is restarted on the next call)`,
        );
      }
      throw new McpError(
        name,
        'mcp_error',
        `MCP server ${name} answered ${tool} with ${msg.startsWith('an answer of the wrong shape') ? msg : `an error: ${msg}`}`,
      );
    }
  }

  private async disconnect(name: string): Promise<void> {
    const p = this.conns.get(name);
    this.conns.delete(name);
    this.cache.delete(name);
    // A server still connecting (one that never answers initialize) is ended, not waited for.
    await this.connecting
      .get(name)
      ?.close()
      .catch(() => undefined);
    const c = await p?.catch(() => undefined);
    if (c) {
      c.alive = false;
      await c.client.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const name of [...this.down.keys()]) this.forgetDown(name);
    await Promise.all([...this.conns.keys()].map((n) => this.disconnect(n)));
  }
}

/** Every page of `tools/list` (a server may answer with a `nextCursor`); at most 1,000 pages. */
async function listAllTools(client: Client, timeout: number): Promise<McpToolListing[]> {
  const tools: McpToolListing[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const listed = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    tools.push(...(listed.tools as McpToolListing[]));
    cursor = listed.nextCursor;
    if (!cursor) return tools;
  }
  throw new Error('tools/list did not end after 1,000 pages');
}

/** How a stdio server's process ended by itself, if it did (`closing`: Toolsmith closed it). */
interface Ended {
  code?: number | null;
  signal?: NodeJS.Signals | null;
  closing?: boolean;
}

/** "it exited with code 1", "it was ended by SIGKILL", or undefined while it runs (or Toolsmith closed it). */
function exitWords(e: Ended): string | undefined {
  if (e.closing) return undefined;
  if (typeof e.code === 'number') return `the server's process exited with code ${e.code}`;
  if (e.signal) return `the server's process was ended by ${e.signal}`;
  return undefined;
}

function tail(lines: string[]): string {
  // (cut before a word: a secret the process printed is shown whole, and redacted, or not at all)
  const t = clipWords(lines.join('').trim().split('\n').slice(-3).join(' | '), 500);
  return t ? ` (stderr: ${t})` : '';
}

async function withTimeout<T>(p: Promise<T>, ms: number, err: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_r, rej) => {
        timer = setTimeout(() => rej(err()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The SDK hands a progress notification to its handler a few microtasks after reading it, but settles a
 * request as soon as its answer is read (and forgets the request's progress handler): a server's last
 * report and its answer read in one chunk would lose the report. Answers are delivered after the
 * messages read before them have been handled (on the next turn of the event loop, in order).
 */
export function answersAfterProgress(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (msg, extra) => {
    if ('id' in msg && ('result' in msg || 'error' in msg))
      setImmediate(() => deliver.call(transport, msg, extra));
    else deliver.call(transport, msg, extra);
  };
}
