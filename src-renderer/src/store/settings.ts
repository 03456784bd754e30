/**
 * Settings and kits as the service reports them: `settings.get` (providers and where their keys come
 * from, pool, limits, runtimes, the maximum kit grade) and `kits.list` (every kit, a refused one with
 * its reason).
 */
import type { StateCreator } from 'zustand';
import type { Response } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import type { Store } from './index.ts';

export type Settings = Response<'settings.get'>;
export type KitList = Response<'kits.list'>;

export interface SettingsSlice {
  settings?: Settings;
  /** True until the first answer, and while a reload is on its way. */
  settingsLoading: boolean;
  settingsError?: string;
  kits?: KitList;
  kitsLoading: boolean;
  kitsError?: string;
  loadSettings(): Promise<void>;
  /** Reloads the kits and the settings (their maximum grade) together. */
  loadKits(): Promise<void>;
}

export const createSettingsSlice: StateCreator<Store, [], [], SettingsSlice> = (set, get) => ({
  settingsLoading: true,
  kitsLoading: true,
  async loadSettings() {
    set({ settingsLoading: true });
    try {
      set({ settings: await api['settings.get']({}), settingsError: undefined });
    } catch (e) {
      set({ settingsError: errorMessage(e) });
    } finally {
      set({ settingsLoading: false });
    }
  },
  async loadKits() {
    set({ kitsLoading: true });
    const loadList = async () => {
      try {
        set({ kits: await api['kits.list']({}), kitsError: undefined });
      } catch (e) {
        // The message instead of a list that cannot be read now (see loadTemplates).
        set({ kitsError: errorMessage(e), kits: undefined });
      }
    };
    await Promise.all([loadList(), get().loadSettings()]);
    set({ kitsLoading: false });
  },
});
