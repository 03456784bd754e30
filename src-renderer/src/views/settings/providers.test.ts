import { describe, expect, it } from 'vitest';
import {
  draftOf,
  EMPTY,
  initialDraft,
  currentTests,
  initialProviders,
  keyStored,
  movedMessage,
  needsKeyAgain,
  providerFormReducer,
  providerTested,
  providersReducer,
  saveRequest,
  savedMessage,
  testRequest,
} from './providers.ts';
import type { Provider, TestResult } from './providers.ts';

const saved = {
  id: 'local',
  kind: 'openai',
  model: 'qwen',
  baseUrl: 'http://127.0.0.1:11434/v1',
} as Provider;
const ok: TestResult = { ok: true, url: 'u', model: 'm', latencyMs: 3 };

describe('the provider form', () => {
  it('sends trimmed fields, leaves out empty ones, and never an empty key', () => {
    const d = { ...EMPTY, id: ' local ', model: ' qwen ', baseUrl: '  ', apiKeyEnv: ' KEY ' };
    expect(testRequest(d)).toEqual({ id: 'local', kind: 'openai', model: 'qwen' });
    expect(saveRequest(d, undefined)).toEqual({
      id: 'local',
      kind: 'openai',
      model: 'qwen',
      apiKeyEnv: 'KEY',
      // A new provider: the service refuses one whose id exists instead of replacing it.
      add: true,
    });
    const edited = saveRequest({ ...d, apiKey: 'sk' }, 'old');
    expect(edited).toMatchObject({ apiKey: 'sk', previousId: 'old' });
    expect(edited).not.toHaveProperty('add');
  });

  it('an edited provider starts with its saved values and no key; a changed URL asks for the key again', () => {
    const initial = draftOf(saved);
    expect(initial).toEqual({
      id: 'local',
      kind: 'openai',
      model: 'qwen',
      baseUrl: saved.baseUrl,
      apiKeyEnv: '',
      apiKey: '',
    });
    const moved = { ...initial, baseUrl: 'http://10.0.0.2/v1' };
    expect(needsKeyAgain(moved, initial, 'local', true)).toBe(true);
    expect(needsKeyAgain({ ...moved, apiKey: 'sk' }, initial, 'local', true)).toBe(false);
    expect(needsKeyAgain(moved, initial, undefined, true)).toBe(false);
    // No stored key (a local server, a key from the environment): nothing to enter again.
    expect(needsKeyAgain(moved, initial, 'local', false)).toBe(false);
    expect(initialDraft('new', [saved])).toBe(EMPTY);
    expect(initialDraft('local', [saved]).model).toBe('qwen');
  });

  it('a key is stored when set from the workbench (keychain, service), for this URL or another', () => {
    expect(keyStored(undefined)).toBe(false);
    expect(keyStored({ ...saved, keySource: 'none', keyNeeded: false })).toBe(false);
    expect(keyStored({ ...saved, keySource: 'env', keyNeeded: true })).toBe(false);
    expect(keyStored({ ...saved, keySource: 'memory', keyNeeded: true })).toBe(true);
    expect(keyStored({ ...saved, keySource: 'keychain', keyNeeded: true })).toBe(true);
    expect(keyStored({ ...saved, keySource: 'none', keyNeeded: true, keyFor: 'http://a/v1' })).toBe(true);
  });

  it('a preset replaces the whole draft; set patches it; a new test clears the last one', () => {
    let s = providerFormReducer(
      { draft: { ...EMPTY, apiKey: 'sk' }, first: true },
      { type: 'preset', draft: { id: 'vllm' } },
    );
    expect(s.draft).toEqual({ ...EMPTY, id: 'vllm' });
    s = providerFormReducer(s, { type: 'set', patch: { model: 'm' } });
    expect(s.draft.model).toBe('m');
    s = providerFormReducer(s, { type: 'tested', result: ok });
    expect(s.tested).toBe(ok);
    expect(providerFormReducer(s, { type: 'tested', result: undefined }).tested).toBeUndefined();
  });

  it('says where the key went and whether the new provider is the default', () => {
    expect(savedMessage({ id: 'p', keyStored: 'keychain' } as never, undefined, true)).toBe(
      'Provider p saved to the workspace config (key kept in keychain), as the default (tried first).',
    );
    expect(savedMessage({ id: 'p' }, 'p', true)).toBe('Provider p saved to the workspace config.');
    expect(movedMessage('p', 0, ['p', 'q'])).toBe('p is now the default provider (tried first).');
    expect(movedMessage('p', 1, ['q', 'p'])).toBe('Order: q, p.');
  });
});

describe('the providers list', () => {
  it('a row test runs, then shows its result; one that could not run goes back and names the error', () => {
    let s = providersReducer(initialProviders, { type: 'testing', id: 'local', as: 'l' });
    expect(s.tests['local']).toBe('running');
    s = providersReducer(s, { type: 'tested', id: 'local', result: ok });
    expect(s.tests['local']).toBe(ok);
    s = providersReducer(providersReducer(s, { type: 'testing', id: 'b', as: 'b' }), {
      type: 'testFailed',
      id: 'b',
      error: 'gone',
    });
    expect(s.tests).toEqual({ local: ok });
    expect(s.error).toBe('gone');
  });

  it("a row's test is shown while the provider is as it was tested: a key set or an edit drops it", () => {
    const local = { ...saved, keySource: 'none', keyNeeded: false } as Provider;
    const failed: TestResult = {
      ok: false,
      url: 'u',
      model: 'm',
      latencyMs: 3,
      error: 'no API key was sent',
    };
    let s = providersReducer(initialProviders, { type: 'testing', id: 'local', as: providerTested(local) });
    s = providersReducer(s, { type: 'tested', id: 'local', result: failed });
    expect(currentTests(s, [local])).toEqual({ local: failed });
    // The key set in Settings after the failed test: the failure no longer says how things are.
    expect(currentTests(s, [{ ...local, keySource: 'memory' }])).toEqual({});
    expect(currentTests(s, [{ ...local, baseUrl: 'http://127.0.0.1:8000/v1' }])).toEqual({});
    expect(currentTests(s, [{ ...local, model: 'other' }])).toEqual({});
    expect(currentTests(s, [])).toEqual({});
    // Another key replacing the one tested: the settings read the same, the count of keys set does not.
    expect(currentTests(s, [local], { local: 1 })).toEqual({});
    expect(currentTests(s, [local], { other: 1 })).toEqual({ local: failed });
    // Testing again shows the new answer.
    const keyed = { ...local, keySource: 'memory' } as Provider;
    s = providersReducer(s, { type: 'testing', id: 'local', as: providerTested(keyed) });
    s = providersReducer(s, { type: 'tested', id: 'local', result: ok });
    expect(currentTests(s, [keyed])).toEqual({ local: ok });
  });

  it('opens and closes the form', () => {
    const s = providersReducer(initialProviders, { type: 'edit', id: 'new' });
    expect(s.editing).toBe('new');
    expect(providersReducer(s, { type: 'edit', id: undefined }).editing).toBeUndefined();
  });
});
