/** The Connections view's state (connections.ts) bound to the store and the API. */
import { useCallback, useEffect, useReducer } from 'react';
import type { McpServerView } from '../../../../src-main/contract/api.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useStore } from '../../store/index.ts';
import {
  connectionsReducer,
  editServerForm,
  initialConnections,
  newServerForm,
  restoreServerForm,
} from './connections.ts';
import { useLoadOnMount } from '../../lib/useLoad.ts';
import { readDraft, writeDraft } from '../../lib/session-draft.ts';

/**
 * The open add/edit form, kept in the tab's sessionStorage: a reload (F5, the page restarted) brings it
 * back as it was typed (it was gone); saved or cancelled, it goes.
 */
const DRAFT = 'mcp-server';

export function useConnections() {
  const sandboxes = useStore((s) => s.sandboxes);
  const loadApp = useStore((s) => s.loadApp);
  const notify = useStore((s) => s.notify);
  const servers = useStore((s) => s.mcpServers);
  const loadError = useStore((s) => s.mcpServersError);
  const reload = useStore((s) => s.loadMcpServers);
  const [state, dispatch] = useReducer(connectionsReducer, initialConnections, (s) => {
    const form = readDraft(DRAFT, restoreServerForm);
    return form ? { ...s, form } : s;
  });
  useEffect(() => writeDraft(DRAFT, state.form), [state.form]);

  useLoadOnMount(reload);

  // Not a useSubmit: selecting another server while one is being tested tests it at once.
  const select = useCallback(
    async (name: string) => {
      dispatch({ type: 'select', name });
      try {
        const tested = await api['mcp.test']({ name });
        dispatch({ type: 'tested', tested });
        const sb = tested.server.sandboxes[0];
        dispatch({ type: 'sandboxTools', tools: sb ? (await api['tools.list']({ sandbox: sb })).tools : [] });
      } catch (e) {
        dispatch({ type: 'testFailed', error: errorMessage(e) });
      } finally {
        dispatch({ type: 'testEnded' });
        void reload();
      }
    },
    [reload],
  );

  const saved = (s: McpServerView) => {
    notify('info', `MCP server ${s.name} saved to .toolsmith/config.toml.`);
    dispatch({ type: 'closeForm' });
    void loadApp();
    void reload().then(() => select(s.name));
  };

  const remove = async (s: McpServerView) => {
    const users = s.sandboxes.length ? ` and from sandbox ${s.sandboxes.join(', ')}` : '';
    if (!confirm(`Remove MCP server ${s.name} from .toolsmith/config.toml${users}?`)) return;
    try {
      const r = await api['mcp.remove']({ name: s.name });
      notify(
        'info',
        `MCP server ${r.name} removed from .toolsmith/config.toml${r.sandboxes.length ? ` (and from sandbox ${r.sandboxes.join(', ')})` : ''}.`,
      );
      dispatch({ type: 'removed', name: s.name });
    } catch (e) {
      notify('error', `Could not remove MCP server ${s.name}: ${errorMessage(e)}`);
    }
    void loadApp();
    void reload();
  };

  return {
    state,
    remove,
    dispatch,
    servers,
    loadError,
    sandboxes: sandboxes.map((s) => s.name),
    server: servers?.find((s) => s.name === state.selected),
    reload,
    select,
    saved,
    add: () => dispatch({ type: 'openForm', form: newServerForm(Date.now()) }),
    edit: (s: McpServerView) => dispatch({ type: 'openForm', form: editServerForm(s, Date.now()) }),
  };
}
