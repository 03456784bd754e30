/**
 * The renderer's API: `window.toolsmith` (Electron preload) or, in a browser, the web client of the
 * same contract (POST /api/<method> with the token from the page URL).
 */
import type { ApiResult, Method, Request, Response, ToolsmithApi } from '../../../src-main/contract/api.ts';

declare global {
  interface Window {
    toolsmith?: ToolsmithApi;
  }
}

export class ApiCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

function webClient(): ToolsmithApi {
  const token =
    new URLSearchParams(location.search).get('token') ?? sessionStorage.getItem('toolsmith.token') ?? '';
  if (token) sessionStorage.setItem('toolsmith.token', token);
  const call = async <M extends Method>(method: M, req: Request<M>): Promise<Response<M>> => {
    const res = await fetch(`/api/${method}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(req),
    });
    let body: ApiResult<M>;
    try {
      body = (await res.json()) as ApiResult<M>;
    } catch {
      throw new ApiCallError('infra', `the server answered ${res.status} without JSON`);
    }
    if (!body.ok) throw new ApiCallError(body.error.code, body.error.message);
    return body.value;
  };
  return new Proxy({} as ToolsmithApi, {
    get: (_t, method: string) => (req: unknown) => call(method as Method, req as Request<Method>),
  });
}

export const api: ToolsmithApi = window.toolsmith ?? webClient();
