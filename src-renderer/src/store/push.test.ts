import { describe, expect, it } from 'vitest';
import type { PushEvent, SuiteProgressView } from '../../../src-main/contract/api.ts';
import { installPush, routePush } from './push.ts';
import type { PushTarget } from './push.ts';

const target = () => {
  const got: string[] = [];
  const t: PushTarget = {
    handlePush: (e) => got.push(`run ${e.type}`),
    onSuiteProgress: (p) => got.push(`suite ${p.suiteRun}`),
    onImageProgress: (e) => got.push(`image ${e.runtime}${e.sandbox ? ` ${e.sandbox}` : ''}`),
    onEngineChanged: () => got.push('engine'),
    onTelemetry: (e) => got.push(`telemetry ${e.level}`),
    onWorkspaceChanged: (c) => got.push(`workspace ${c.what}${c.error ? ' error' : ''}`),
  };
  return { got, t };
};

const progress = { suiteRun: 's1' } as SuiteProgressView;

const EVENTS: [PushEvent, string][] = [
  [{ type: 'run_event', event: { runId: 'r', seq: 0 } } as PushEvent, 'run run_event'],
  [{ type: 'token', runId: 'r', n: 1, text: 'x' }, 'run token'],
  [{ type: 'reconnected' }, 'run reconnected'],
  [{ type: 'suite_progress', progress }, 'suite s1'],
  [{ type: 'image_progress', runtime: 'python', line: 'step 1' }, 'image python'],
  [{ type: 'image_progress', runtime: 'node', line: 'npm i', sandbox: 'web' }, 'image node web'],
  [{ type: 'workspace_changed', what: 'config' }, 'workspace config'],
  [{ type: 'engine_changed', isolation: 'docker', message: 'Docker answers' }, 'engine'],
  [{ type: 'telemetry', runId: 'r', level: 'failed', message: 'could not export' }, 'telemetry failed'],
  [
    { type: 'workspace_changed', what: 'config', error: 'config.toml:3: pool.max_size' },
    'workspace config error',
  ],
];

describe('routePush', () => {
  it('sends every pushed event to exactly the slice that owns it', () => {
    for (const [e, want] of EVENTS) {
      const { got, t } = target();
      routePush(e, t);
      expect(got).toEqual([want]);
    }
  });
});

describe('installPush', () => {
  it('subscribes once, reads the slices per event and unsubscribes', () => {
    const listeners = new Set<(e: PushEvent) => void>();
    const subscribe = (fn: (e: PushEvent) => void) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    };
    const { got, t } = target();
    let reads = 0;
    const off = installPush(subscribe, () => {
      reads++;
      return t;
    });
    expect(listeners.size).toBe(1);
    for (const [e] of EVENTS) for (const l of listeners) l(e);
    expect(got).toEqual(EVENTS.map(([, want]) => want));
    expect(reads).toBe(EVENTS.length);
    off();
    expect(listeners.size).toBe(0);
  });
});
