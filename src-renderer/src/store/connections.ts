/** The MCP servers the workspace imports tools from (`mcp.servers`), as the Connections view lists them. */
import type { StateCreator } from 'zustand';
import type { McpServerView } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import type { Store } from './index.ts';

export interface ConnectionsSlice {
  mcpServers?: McpServerView[];
  mcpServersError?: string;
  /** Reloads the server list; resolves to it, or undefined when it could not be read. */
  loadMcpServers(): Promise<McpServerView[] | undefined>;
}

export const createConnectionsSlice: StateCreator<Store, [], [], ConnectionsSlice> = (set) => ({
  async loadMcpServers() {
    try {
      const list = await api['mcp.servers']({});
      set({ mcpServers: list, mcpServersError: undefined });
      return list;
    } catch (e) {
      set({ mcpServersError: errorMessage(e) });
      return undefined;
    }
  },
});
