/**
 * The two ways a view loads what it shows when it opens, written once:
 * - `useLoadOnMount(load)`: a store action that fetches into the store (stable, so it runs once per
 *   mount, and again only if the action itself changes);
 * - `useGuardedLoad(fetch, onValue, onError, deps)`: a fetch whose answer goes to local state or a
 *   reducer; it runs on mount and when `deps` change, and only the latest request's answer is delivered
 *   (none after unmount). `fetch` answers `undefined` when there is nothing to load yet.
 */
import { useEffect } from 'react';
import type { DependencyList } from 'react';
import { messageOf as errorMessage } from './submit.ts';

export function useLoadOnMount(load: () => unknown): void {
  useEffect(() => void load(), [load]);
}

export function useGuardedLoad<T>(
  fetch: () => Promise<T> | undefined,
  onValue: (value: T) => void,
  onError: (message: string) => void,
  deps: DependencyList,
): void {
  useEffect(() => {
    const request = fetch();
    if (!request) return;
    let live = true;
    request.then(
      (v) => {
        if (live) onValue(v);
      },
      (e: unknown) => {
        if (live) onError(errorMessage(e));
      },
    );
    return () => {
      live = false;
    };
    // The callers' deps decide when to load again; the callbacks are read at that time.
  }, deps);
}
