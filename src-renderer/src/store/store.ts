/** One zustand store of typed slices; components select narrowly. */
import { create } from 'zustand';
import type { Response } from '../../../src-main/contract/api.ts';
import { api } from '../api/client.ts';

type Sandboxes = Response<'sandboxes.list'>;
type ToolsView = Response<'tools.list'>;

interface WorkspaceSlice {
  info?: Response<'workspace.info'>;
  sandboxes: Sandboxes;
  selected?: string;
  tools?: ToolsView;
  loading: boolean;
  error?: string;
  load(): Promise<void>;
  select(sandbox: string): Promise<void>;
}

interface ThemeSlice {
  theme: 'light' | 'dark';
  toggleTheme(): void;
}

export type Store = WorkspaceSlice & ThemeSlice;

export const useStore = create<Store>((set, get) => ({
  sandboxes: [],
  loading: false,
  theme: matchMedia?.('(prefers-color-scheme: dark)').matches ? 'dark' : 'light',
  toggleTheme: () => set({ theme: get().theme === 'dark' ? 'light' : 'dark' }),
  async load() {
    set({ loading: true, error: undefined });
    try {
      const [info, sandboxes] = await Promise.all([api['workspace.info']({}), api['sandboxes.list']({})]);
      set({ info, sandboxes, loading: false });
      const first = sandboxes[0]?.name;
      if (first && !get().selected) await get().select(first);
    } catch (e) {
      set({ loading: false, error: (e as Error).message });
    }
  },
  async select(sandbox) {
    set({ selected: sandbox, tools: undefined, error: undefined });
    try {
      set({ tools: await api['tools.list']({ sandbox }) });
    } catch (e) {
      set({ error: (e as Error).message });
    }
  },
}));
