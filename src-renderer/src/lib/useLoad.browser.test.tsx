import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { render } from 'vitest-browser-react';
import { useGuardedLoad, useLoadOnMount } from './useLoad.ts';

function OnMount({ load }: { load: () => void }) {
  const [n, setN] = useState(0);
  useLoadOnMount(load);
  return (
    <button onClick={() => setN(n + 1)} data-testid="rerender">
      {n}
    </button>
  );
}

/** Shows what the guarded load delivered for the current key. */
function Guarded({ fetchFor, k }: { fetchFor: (k: string) => Promise<string>; k: string }) {
  const [shown, setShown] = useState('none');
  useGuardedLoad(
    () => fetchFor(k),
    (v) => setShown(`value ${v}`),
    (e) => setShown(`error ${e}`),
    [k],
  );
  return <output data-testid="shown">{shown}</output>;
}

/** Loads only once a key is picked (the kit editor's tools once a sandbox is). */
function Optional({ fetchFor, k }: { fetchFor: (k: string) => Promise<string>; k: string }) {
  const [shown, setShown] = useState('none');
  useGuardedLoad(
    () => (k ? fetchFor(k) : undefined),
    (v) => setShown(`value ${v}`),
    (e) => setShown(`error ${e}`),
    [k],
  );
  return <output data-testid="shown">{shown}</output>;
}

/** A fetch whose answers the test releases one by one. */
function deferred() {
  const waiting = new Map<string, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  const fetchFor = (k: string) =>
    new Promise<string>((resolve, reject) => {
      waiting.set(k, { resolve, reject });
    });
  return { waiting, fetchFor };
}

describe('the load hooks', () => {
  it('a store action loads once on mount, not on every render', async () => {
    const load = vi.fn();
    const s = await render(<OnMount load={load} />);
    await s.getByTestId('rerender').click();
    await s.getByTestId('rerender').click();
    await expect.element(s.getByTestId('rerender')).toHaveTextContent('2');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a guarded load delivers its answer, or its error as a message', async () => {
    const d = deferred();
    const s = await render(<Guarded fetchFor={d.fetchFor} k="a" />);
    await vi.waitFor(() => expect(d.waiting.has('a')).toBe(true));
    d.waiting.get('a')!.resolve('A');
    await expect.element(s.getByTestId('shown')).toHaveTextContent('value A');
    await s.rerender(<Guarded fetchFor={d.fetchFor} k="b" />);
    await vi.waitFor(() => expect(d.waiting.has('b')).toBe(true));
    d.waiting.get('b')!.reject(new Error('the service is down'));
    await expect.element(s.getByTestId('shown')).toHaveTextContent('error the service is down');
  });

  it('a fetch with nothing to load yet requests nothing, and loads once there is', async () => {
    const d = deferred();
    const fetchFor = vi.fn(d.fetchFor);
    const s = await render(<Optional fetchFor={fetchFor} k="" />);
    await expect.element(s.getByTestId('shown')).toHaveTextContent('none');
    expect(fetchFor).not.toHaveBeenCalled();
    await s.rerender(<Optional fetchFor={fetchFor} k="ecommerce" />);
    await vi.waitFor(() => expect(d.waiting.has('ecommerce')).toBe(true));
    d.waiting.get('ecommerce')!.resolve('tools');
    await expect.element(s.getByTestId('shown')).toHaveTextContent('value tools');
    expect(fetchFor).toHaveBeenCalledTimes(1);
  });

  it('only the latest request is delivered: an older answer arriving late is dropped', async () => {
    const d = deferred();
    const s = await render(<Guarded fetchFor={d.fetchFor} k="old" />);
    await vi.waitFor(() => expect(d.waiting.has('old')).toBe(true));
    await s.rerender(<Guarded fetchFor={d.fetchFor} k="new" />);
    await vi.waitFor(() => expect(d.waiting.has('new')).toBe(true));
    d.waiting.get('new')!.resolve('NEW');
    await expect.element(s.getByTestId('shown')).toHaveTextContent('value NEW');
    d.waiting.get('old')!.resolve('OLD');
    // The late answer is a settled promise: once its callbacks have run, the view still shows NEW.
    await Promise.resolve();
    await new Promise((r) => requestAnimationFrame(r));
    await expect.element(s.getByTestId('shown')).toHaveTextContent('value NEW');
  });
});
