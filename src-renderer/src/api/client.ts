/**
 * The renderer's API: `window.toolsmith` (Electron preload) or, in a browser, the web client of the
 * same contract (POST /api/<method> with the token from the page URL, pushed events over a WebSocket).
 */
import type {
  ApiResult,
  ErrorCode,
  Method,
  PushEvent,
  Request,
  Response,
  ToolsmithApi,
} from '../../../src-main/contract/api.ts';

declare global {
  interface Window {
    toolsmith?: ToolsmithApi;
  }
}

export class ApiCallError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

function webClient(): ToolsmithApi {
  const token =
    new URLSearchParams(location.search).get('token') ?? sessionStorage.getItem('toolsmith.token') ?? '';
  if (token) sessionStorage.setItem('toolsmith.token', token);
  const call = async <M extends Method>(method: M, req: Request<M>): Promise<Response<M>> => {
    let res: globalThis.Response;
    try {
      res = await fetch(`/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(req),
      });
    } catch (e) {
      throw new ApiCallError('infra', `the Toolsmith service does not answer (${(e as Error).message})`);
    }
    let body: ApiResult<M>;
    try {
      body = (await res.json()) as ApiResult<M>;
    } catch {
      throw new ApiCallError('infra', `the server answered ${res.status} without JSON`);
    }
    if (!body.ok) throw new ApiCallError(body.error.code, body.error.message);
    return body.value;
  };

  // One WebSocket for pushed events, opened on first subscription and reopened after a drop.
  const listeners = new Set<(e: PushEvent) => void>();
  let socket: WebSocket | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let dropped = false;
  const open = () => {
    if (socket || listeners.size === 0) return;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${location.host}/api/events?token=${encodeURIComponent(token)}`);
    socket = ws;
    // After a drop, listeners catch up on what was pushed meanwhile.
    if (dropped)
      ws.onopen = () => {
        for (const l of listeners) l({ type: 'reconnected' });
      };
    ws.onmessage = (m) => {
      let e: PushEvent;
      try {
        e = JSON.parse(String(m.data)) as PushEvent;
      } catch {
        return;
      }
      for (const l of listeners) l(e);
    };
    ws.onclose = () => {
      socket = undefined;
      dropped = true;
      if (listeners.size > 0 && !retry)
        retry = setTimeout(() => {
          retry = undefined;
          open();
        }, 1000);
    };
  };
  const onEvent = (fn: (e: PushEvent) => void) => {
    listeners.add(fn);
    open();
    return () => {
      listeners.delete(fn);
      if (listeners.size === 0) socket?.close();
    };
  };

  return new Proxy({} as ToolsmithApi, {
    get: (_t, method: string) =>
      method === 'onEvent'
        ? onEvent
        : (req: unknown) => call(method as Method, (req ?? {}) as Request<Method>),
  });
}

export const api: ToolsmithApi = window.toolsmith ?? webClient();

/**
 * A browser page opened without the server's token (e.g. the bare http://127.0.0.1:PORT/): nothing it
 * calls would be answered, so the page says where the right URL is instead.
 */
export const missingToken = (): boolean =>
  !window.toolsmith &&
  !new URLSearchParams(location.search).get('token') &&
  !sessionStorage.getItem('toolsmith.token');

/** A short, human message for any thrown value. */
/** An error's message for the UI (one definition, in lib/submit.ts, where the renderer tests reach it). */
export { messageOf as errorMessage } from '../lib/submit.ts';
