/**
 * The one receiver of pushed events (run events, LLM tokens, reconnection, image-build progress, suite
 * progress, workspace files changed on disk): each goes to the slice that owns it. Installed once, by the App.
 */
import type { PushEvent } from '../../../src-main/contract/api.ts';
import type { Store } from './index.ts';

/** The slice actions pushed events are routed to. */
export type PushTarget = Pick<
  Store,
  | 'handlePush'
  | 'onSuiteProgress'
  | 'onImageProgress'
  | 'onWorkspaceChanged'
  | 'onEngineChanged'
  | 'onTelemetry'
>;

export function routePush(e: PushEvent, to: PushTarget): void {
  switch (e.type) {
    case 'run_event':
    case 'token':
    case 'reconnected':
      to.handlePush(e);
      return;
    case 'suite_progress':
      to.onSuiteProgress(e.progress);
      return;
    case 'image_progress':
      to.onImageProgress(e);
      return;
    case 'workspace_changed':
      to.onWorkspaceChanged(e);
      return;
    case 'engine_changed':
      to.onEngineChanged(e.message);
      return;
    case 'telemetry':
      to.onTelemetry(e);
      return;
  }
}

/**
 * Subscribes the router to the API's pushed events (`subscribe` is `api.onEvent`); the slices are read
 * when an event arrives. Returns the unsubscribe.
 */
export const installPush = (
  subscribe: (fn: (e: PushEvent) => void) => () => void,
  target: () => PushTarget,
): (() => void) => subscribe((e) => routePush(e, target()));
