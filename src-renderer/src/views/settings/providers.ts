/**
 * The providers editor as data: the provider form's draft and the requests it sends, the messages it
 * shows, and the state of the list (which row is edited, each row's connection test, the notice and
 * the error). Pure (tested in node); `useProviders.ts` binds it to React and the API.
 */
import type { Request, Response } from '../../../../src-main/contract/api.ts';

export type Settings = Response<'settings.get'>;
export type Provider = Settings['providers'][number];
export type TestResult = Response<'providers.test'>;
export type Kind = 'openai' | 'anthropic';

export interface Draft {
  id: string;
  kind: Kind;
  baseUrl: string;
  model: string;
  apiKeyEnv: string;
  apiKey: string;
}

export const EMPTY: Draft = { id: '', kind: 'openai', baseUrl: '', model: '', apiKeyEnv: '', apiKey: '' };

export const PRESETS: { label: string; draft: Partial<Draft> }[] = [
  {
    label: 'Ollama',
    draft: { id: 'ollama', kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b' },
  },
  { label: 'vLLM', draft: { id: 'vllm', kind: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', model: '' } },
  {
    label: 'LM Studio',
    draft: { id: 'lmstudio', kind: 'openai', baseUrl: 'http://127.0.0.1:1234/v1', model: '' },
  },
  {
    label: 'OpenAI',
    draft: { id: 'openai', kind: 'openai', baseUrl: '', model: 'gpt-4.1-mini', apiKeyEnv: 'OPENAI_API_KEY' },
  },
  {
    label: 'Anthropic',
    draft: {
      id: 'anthropic',
      kind: 'anthropic',
      baseUrl: '',
      model: 'claude-sonnet-4-5',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
    },
  },
];

/** A saved provider in the form (its key is never sent back: the field starts empty). */
export const draftOf = (p: Provider): Draft => ({
  id: p.id,
  kind: p.kind === 'anthropic' ? 'anthropic' : 'openai',
  baseUrl: p.baseUrl ?? '',
  model: p.model,
  apiKeyEnv: p.apiKeyEnv ?? '',
  apiKey: '',
});

/** A provider needs an id and a model. */
export const draftValid = (d: Draft): boolean => d.id.trim() !== '' && d.model.trim() !== '';

const fields = (d: Draft) => ({
  kind: d.kind,
  model: d.model.trim(),
  ...(d.baseUrl.trim() ? { baseUrl: d.baseUrl.trim() } : {}),
  ...(d.apiKey ? { apiKey: d.apiKey } : {}),
});

export const testRequest = (d: Draft): Request<'providers.test'> => ({
  ...(d.id.trim() ? { id: d.id.trim() } : {}),
  ...fields(d),
});

/** `editing`: the id the provider had (a rename sends it as previousId). */
export const saveRequest = (d: Draft, editing: string | undefined): Request<'providers.save'> => ({
  id: d.id.trim(),
  ...fields(d),
  ...(d.apiKeyEnv.trim() ? { apiKeyEnv: d.apiKeyEnv.trim() } : {}),
  ...(editing ? { previousId: editing } : { add: true as const }),
});

/**
 * Whether a key is stored for this provider (set from the workbench: the keychain or the service
 * process), for its URL or another. A key from the environment, or none (a local server), is not bound
 * to a URL.
 */
export const keyStored = (p: Provider | undefined): boolean =>
  !!p && (p.keySource === 'keychain' || p.keySource === 'memory' || p.keyFor !== undefined);

/**
 * An edited provider with a stored key whose URL changed without the key typed again: a stored key goes
 * only to the URL it was saved for, so the form says the key is needed again. A provider with no stored
 * key (a local server, a key from the environment) has nothing to enter again.
 */
export const needsKeyAgain = (
  d: Draft,
  initial: Draft,
  editing: string | undefined,
  stored: boolean,
): boolean => !!editing && stored && d.baseUrl.trim() !== initial.baseUrl.trim() && !d.apiKey;

export const savedMessage = (r: Response<'providers.save'>, editing: string | undefined, first: boolean) =>
  `Provider ${r.id} saved to the workspace config${r.keyStored ? ` (key kept in ${r.keyStored})` : ''}${!editing && first ? ', as the default (tried first)' : ''}.`;

export const movedMessage = (id: string, to: number, order: string[]) =>
  to === 0 ? `${id} is now the default provider (tried first).` : `Order: ${order.join(', ')}.`;

/** The provider form: the draft, whether a new provider goes first, and the last connection test. */
export interface ProviderFormState {
  draft: Draft;
  /** A new provider: try it first (the default) rather than last. */
  first: boolean;
  tested?: TestResult;
}

export type ProviderFormAction =
  | { type: 'set'; patch: Partial<Draft> }
  /** A preset replaces the whole draft. */
  | { type: 'preset'; draft: Partial<Draft> }
  | { type: 'first'; first: boolean }
  | { type: 'tested'; result: TestResult | undefined };

export function providerFormReducer(s: ProviderFormState, a: ProviderFormAction): ProviderFormState {
  switch (a.type) {
    case 'set':
      return { ...s, draft: { ...s.draft, ...a.patch } };
    case 'preset':
      return { ...s, draft: { ...EMPTY, ...a.draft } };
    case 'first':
      return { ...s, first: a.first };
    case 'tested': {
      const { tested: _old, ...rest } = s;
      return a.result ? { ...rest, tested: a.result } : rest;
    }
  }
}

/** The list: the row edited ('new' for the add form), each row's test, the last notice and error. */
export interface ProvidersState {
  editing?: string | 'new';
  tests: Record<string, TestResult | 'running'>;
  /** Each row's provider as it was tested (`providerTested`): a test of an older form is not shown. */
  testedAs: Record<string, string>;
  notice?: string;
  error?: string;
}

export const initialProviders: ProvidersState = { tests: {}, testedAs: {} };

/**
 * What a row's connection test depends on: the provider's kind, URL, model and key (where it comes
 * from, and `keysSet`: how many keys were set for it in this page, as one key replacing another looks
 * the same in the settings). A key set, or the provider edited, after the test makes its result stale.
 */
export const providerTested = (p: Provider | undefined, keysSet = 0): string =>
  p
    ? JSON.stringify([
        p.kind,
        p.baseUrl ?? '',
        p.model,
        p.apiKeyEnv ?? '',
        p.keySource,
        p.keyFor ?? '',
        keysSet,
      ])
    : '';

/**
 * The rows' tests still true of the providers as they are: a failure saying "no API key was sent" is
 * gone once a key is set (the row's Test asks again).
 */
export function currentTests(
  s: ProvidersState,
  providers: Provider[],
  keysSet: Record<string, number> = {},
): ProvidersState['tests'] {
  const out: ProvidersState['tests'] = {};
  for (const [id, t] of Object.entries(s.tests))
    if (
      s.testedAs[id] ===
      providerTested(
        providers.find((p) => p.id === id),
        keysSet[id],
      )
    )
      out[id] = t;
  return out;
}

export type ProvidersAction =
  | { type: 'edit'; id: string | 'new' | undefined }
  /** `as`: the provider tested (`providerTested`). */
  | { type: 'testing'; id: string; as: string }
  | { type: 'tested'; id: string; result: TestResult }
  /** The test could not run: its row goes back to untested and the error is shown. */
  | { type: 'testFailed'; id: string; error: string }
  | { type: 'notice'; text: string }
  | { type: 'error'; error: string | undefined };

export function providersReducer(s: ProvidersState, a: ProvidersAction): ProvidersState {
  switch (a.type) {
    case 'edit': {
      const { editing: _old, ...rest } = s;
      return a.id === undefined ? rest : { ...rest, editing: a.id };
    }
    case 'testing':
      return { ...s, tests: { ...s.tests, [a.id]: 'running' }, testedAs: { ...s.testedAs, [a.id]: a.as } };
    case 'tested':
      return { ...s, tests: { ...s.tests, [a.id]: a.result } };
    case 'testFailed': {
      const { [a.id]: _gone, ...tests } = s.tests;
      return { ...s, tests, error: a.error };
    }
    case 'notice':
      return { ...s, notice: a.text };
    case 'error':
      return { ...s, error: a.error };
  }
}

/** The form's starting draft for the row edited. */
export const initialDraft = (editing: string | 'new', providers: Provider[]): Draft =>
  editing === 'new' ? EMPTY : draftOf(providers.find((p) => p.id === editing) ?? providers[0]!);
