/**
 * The shape of the handler table behind the contract (handlers.ts): one handler per method, given the
 * composition root (whose feature objects it calls), the validated request and what the front end adds.
 */
import type { Method, Request, Response } from '../contract/api.ts';
import type { ToolsmithService } from './service.ts';
import type { KeyStore } from './settings.ts';
import type { OpenWorkspace } from './workspaces.ts';

/** What a front end adds: where provider keys go (the desktop keychain, or this process only). */
export interface FrontEndContext {
  storeKey?: KeyStore;
  /** Switches the front end to the service of another workspace (app and `serve`; not CLI/MCP). */
  openWorkspace?: OpenWorkspace;
  /** A native folder dialog (desktop only). */
  chooseFolder?: () => Promise<string | undefined>;
  /**
   * Aborted when the request is cancelled (`serve`: its HTTP client went away before the answer): a
   * read of the run store waiting through a copy over it stops then (infra/store/read-through.ts).
   */
  signal?: AbortSignal;
}

export type Handlers = {
  [M in Method]: (
    svc: ToolsmithService,
    req: Request<M>,
    fe: FrontEndContext,
  ) => Response<M> | Promise<Response<M>>;
};
