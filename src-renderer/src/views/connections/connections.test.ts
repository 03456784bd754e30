import { describe, expect, it } from 'vitest';
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import {
  connectedLine,
  connectionsReducer,
  editServerForm,
  initialConnections,
  newServerForm,
  restoreServerForm,
  sandboxToolOf,
} from './connections.ts';
import type { Tested } from './connections.ts';

const server = (name: string, sandboxes: string[] = []): McpServerView => ({
  name,
  transport: 'stdio',
  target: 'npx srv',
  state: 'connected',
  connects: 1,
  description: '',
  def: { command: 'npx', args: ['srv'], env: {}, headers: {}, timeout_ms: 30000 },
  sandboxes,
});
const tool = (name: string, mcp?: { server: string; tool: string }) =>
  ({ name, ...(mcp ? { mcp } : {}) }) as never;
const tested = (name: string, sandboxes: string[] = []): Tested => ({
  server: { ...server(name, sandboxes), server: { name: 'everything', version: '1.0' } },
  tools: [tool('echo'), tool('add')],
  ms: 42,
});

describe('the Connections view state', () => {
  it('a removed server takes its selection, test and open edit form with it; another server is untouched', () => {
    let s = connectionsReducer(initialConnections, { type: 'select', name: 'a' });
    s = connectionsReducer(s, { type: 'tested', tested: tested('a') });
    s = connectionsReducer(s, { type: 'openForm', form: editServerForm(server('a'), 1) });
    const other = connectionsReducer(s, { type: 'removed', name: 'b' });
    expect(other).toMatchObject({ selected: 'a', tested: tested('a') });
    expect(other.form?.editing).toBe(true);
    const gone = connectionsReducer(s, { type: 'removed', name: 'a' });
    expect(gone.selected).toBeUndefined();
    expect(gone.tested).toBeUndefined();
    expect(gone.form).toBeUndefined();
    // A new server's form (not an edit of the one removed) stays open.
    const adding = connectionsReducer(
      connectionsReducer(initialConnections, { type: 'openForm', form: newServerForm(2) }),
      { type: 'removed', name: '' },
    );
    expect(adding.form?.editing).toBe(false);
  });

  it('selecting a server starts its test and forgets the previous one (result, error, tool tried)', () => {
    let s = connectionsReducer(initialConnections, { type: 'select', name: 'a' });
    s = connectionsReducer(s, { type: 'tested', tested: tested('a') });
    s = connectionsReducer(s, { type: 'try', tool: 'echo' });
    s = connectionsReducer(s, { type: 'testFailed', error: 'x' });
    s = connectionsReducer(s, { type: 'select', name: 'b' });
    expect(s).toMatchObject({
      selected: 'b',
      testing: true,
      tested: undefined,
      testError: undefined,
      trying: undefined,
    });
    expect(connectionsReducer(s, { type: 'testEnded' }).testing).toBe(false);
  });

  it('every open of the form is a new form; editing starts from the server', () => {
    expect(newServerForm(1).key).not.toBe(newServerForm(2).key);
    const e = editServerForm(server('files', ['demo']), 5);
    expect(e).toMatchObject({ key: 'edit-files-5', editing: true });
    expect(e.draft.name).toBe('files');
    const s = connectionsReducer(initialConnections, { type: 'openForm', form: e });
    expect(connectionsReducer(s, { type: 'closeForm' }).form).toBeUndefined();
  });

  it("finds a tested tool among the sandbox's tools by server and MCP name", () => {
    const inSandbox = [
      tool('files_echo', { server: 'files', tool: 'echo' }),
      tool('other_echo', { server: 'other', tool: 'echo' }),
    ];
    expect(sandboxToolOf(inSandbox, 'files', tool('echo'))).toBe(inSandbox[0]);
    expect(sandboxToolOf(inSandbox, 'files', tool('add'))).toBeUndefined();
  });

  it('says how long the connection took, to what, and when no sandbox uses the server', () => {
    expect(connectedLine(tested('a', ['demo']))).toBe('Connected in 42 ms to everything 1.0: 2 tools.');
    expect(connectedLine(tested('a'))).toBe(
      'Connected in 42 ms to everything 1.0: 2 tools. Use it in a sandbox (Edit) to try its tools and run scripts.',
    );
  });
});

describe('the add/edit form kept for a reload', () => {
  it('an edit is the form state; kept as JSON it comes back as it was, junk does not', () => {
    const open = connectionsReducer(initialConnections, { type: 'openForm', form: newServerForm(1) });
    const typed = connectionsReducer(open, {
      type: 'formEdited',
      draft: { ...open.form!.draft, name: 'mem', command: 'npx' },
    });
    expect(typed.form).toMatchObject({
      key: 'new-1',
      editing: false,
      draft: { name: 'mem', command: 'npx' },
    });
    expect(restoreServerForm(JSON.parse(JSON.stringify(typed.form)))).toEqual(typed.form);
    expect(
      restoreServerForm({ key: 'k', editing: false, draft: { name: 'x', transport: 'ftp' } }),
    ).toBeUndefined();
    expect(restoreServerForm('x')).toBeUndefined();
    // No form open: an edit changes nothing.
    expect(connectionsReducer(initialConnections, { type: 'formEdited', draft: typed.form!.draft })).toBe(
      initialConnections,
    );
  });
});
