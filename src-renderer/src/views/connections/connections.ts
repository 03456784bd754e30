/**
 * The Connections view's state as data: the server selected and its connection test (under way,
 * failed, or its tools), the tools of the sandbox that uses it (for Try), the tool being tried, and the
 * add/edit form. Pure (tested in node); `useConnections.ts` binds it to React, the API and the store.
 */
import type { McpServerView, Response } from '../../../../src-main/contract/api.ts';
import type { SandboxTool } from '../../../../src-main/core/tools/extract.ts';
import { draftOf, emptyDraft } from './server.ts';
import type { Draft } from './server.ts';

export type Tested = Response<'mcp.test'>;

/** The open form: `key` remounts it for each new open. */
export interface ServerFormState {
  key: string;
  draft: Draft;
  editing: boolean;
}

export interface ConnectionsState {
  selected?: string;
  form?: ServerFormState;
  tested?: Tested;
  testError?: string;
  testing: boolean;
  /** The tools of the first sandbox that uses the tested server (tools.list). */
  sandboxTools: SandboxTool[];
  /** The tool whose Try form is open. */
  trying?: string;
}

export const initialConnections: ConnectionsState = { testing: false, sandboxTools: [] };

export type ConnectionsAction =
  /** A server picked: it is tested at once (whatever was under way before). */
  | { type: 'select'; name: string }
  | { type: 'tested'; tested: Tested }
  | { type: 'sandboxTools'; tools: SandboxTool[] }
  | { type: 'testFailed'; error: string }
  | { type: 'testEnded' }
  | { type: 'openForm'; form: ServerFormState }
  | { type: 'closeForm' }
  /** What the open form holds now (kept for a reload: `restoreServerForm`). */
  | { type: 'formEdited'; draft: Draft }
  | { type: 'try'; tool: string }
  /** A server removed from the config: its selection, test and open edit form go with it. */
  | { type: 'removed'; name: string };

export function connectionsReducer(s: ConnectionsState, a: ConnectionsAction): ConnectionsState {
  switch (a.type) {
    case 'select':
      return {
        ...s,
        selected: a.name,
        testing: true,
        testError: undefined,
        tested: undefined,
        trying: undefined,
      };
    case 'tested':
      return { ...s, tested: a.tested };
    case 'sandboxTools':
      return { ...s, sandboxTools: a.tools };
    case 'testFailed':
      return { ...s, testError: a.error };
    case 'testEnded':
      return { ...s, testing: false };
    case 'openForm':
      return { ...s, form: a.form };
    case 'closeForm':
      return { ...s, form: undefined };
    case 'formEdited':
      return s.form ? { ...s, form: { ...s.form, draft: a.draft } } : s;
    case 'try':
      return { ...s, trying: a.tool };
    case 'removed': {
      const form = s.form?.editing && s.form.draft.name === a.name ? undefined : s.form;
      if (s.selected !== a.name) return { ...s, form };
      return { ...initialConnections, form };
    }
  }
}

/** The add form (`now` makes each open a new form). */
export const newServerForm = (now: number): ServerFormState => ({
  key: `new-${now}`,
  draft: emptyDraft(''),
  editing: false,
});

export const editServerForm = (s: McpServerView, now: number): ServerFormState => ({
  key: `edit-${s.name}-${now}`,
  draft: draftOf(s),
  editing: true,
});

/** A tested tool as the sandbox that uses the server sees it (what Try calls), if it does. */
export const sandboxToolOf = (
  sandboxTools: SandboxTool[],
  server: string,
  tool: SandboxTool,
): SandboxTool | undefined =>
  sandboxTools.find((x) => x.mcp?.server === server && x.mcp.tool === (tool.mcp?.tool ?? tool.name));

/** The line under the server's name once connected. */
export const connectedLine = (t: Tested): string =>
  `Connected in ${t.ms} ms${t.server.server ? ` to ${t.server.server.name} ${t.server.server.version}` : ''}: ${t.tools.length} tools.${t.server.sandboxes.length === 0 ? ' Use it in a sandbox (Edit) to try its tools and run scripts.' : ''}`;

const DRAFT_TEXT_FIELDS = [
  'name',
  'command',
  'args',
  'env',
  'url',
  'headers',
  'timeoutMs',
  'startupTimeoutMs',
  'description',
  'sandbox',
] as const;

/**
 * The add/edit form as the tab's sessionStorage kept it (lib/session-draft.ts), or undefined for anything
 * else (another version's shape, a hand edit). A reload lost a server typed halfway (command, env lines).
 */
export function restoreServerForm(raw: unknown): ServerFormState | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const d = r['draft'] as Record<string, unknown> | undefined;
  if (typeof r['key'] !== 'string' || typeof r['editing'] !== 'boolean' || !d || typeof d !== 'object')
    return undefined;
  if (d['transport'] !== 'stdio' && d['transport'] !== 'http') return undefined;
  if (!DRAFT_TEXT_FIELDS.every((k) => typeof d[k] === 'string')) return undefined;
  const draft = { transport: d['transport'] } as Draft;
  for (const k of DRAFT_TEXT_FIELDS) draft[k] = d[k] as string;
  return { key: r['key'], editing: r['editing'], draft };
}
