/**
 * The Templates view's server state: the template list (with the files that do not parse), the
 * results of testing templates against their examples, and deleting a template.
 */
import type { StateCreator } from 'zustand';
import type { Response } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import type { Store } from './index.ts';

export type TemplateTest =
  { running: true } | { running: false; result?: Response<'templates.test'>; error?: string };

export interface TemplatesSlice {
  templateList?: Response<'templates.list'>;
  /** True until the first answer, and while a reload is on its way. */
  templatesLoading: boolean;
  templatesError?: string;
  /** Test runs by template name (shown under its row until closed). */
  templateTests: Record<string, TemplateTest>;
  loadTemplates(): Promise<void>;
  /** Runs a template's examples in its sandbox, then reloads the list (tests count as uses). */
  testTemplate(name: string): Promise<void>;
  closeTemplateTest(name: string): void;
  /** Forgets every test result (the view starts without them). */
  clearTemplateTests(): void;
  /**
   * Deletes a template's file and counters; true when it was deleted (a failure is announced). The
   * caller reloads the list.
   */
  deleteTemplate(name: string): Promise<boolean>;
}

const without = <T>(r: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _gone, ...rest } = r;
  return rest;
};

export const createTemplatesSlice: StateCreator<Store, [], [], TemplatesSlice> = (set, get) => ({
  templatesLoading: true,
  templateTests: {},
  async loadTemplates() {
    set({ templatesLoading: true });
    try {
      set({ templateList: await api['templates.list']({}), templatesError: undefined });
    } catch (e) {
      // The message instead of the list: one that cannot be read now is not shown as if it were current
      // (the workspace folder moved or deleted under the service: app/handlers.ts WORKSPACE_LISTS).
      set({ templatesError: errorMessage(e), templateList: undefined });
    } finally {
      set({ templatesLoading: false });
    }
  },
  async testTemplate(name) {
    const put = (t: TemplateTest) => set({ templateTests: { ...get().templateTests, [name]: t } });
    put({ running: true });
    try {
      put({ running: false, result: await api['templates.test']({ name }) });
    } catch (e) {
      put({ running: false, error: errorMessage(e) });
    }
    await get().loadTemplates();
  },
  closeTemplateTest(name) {
    set({ templateTests: without(get().templateTests, name) });
  },
  clearTemplateTests() {
    set({ templateTests: {} });
  },
  async deleteTemplate(name) {
    let deleted = false;
    try {
      await api['templates.delete']({ name });
      get().notify('info', `Template ${name} deleted.`);
      set({ templateTests: without(get().templateTests, name) });
      deleted = true;
    } catch (e) {
      get().notify('error', `Could not delete template ${name}: ${errorMessage(e)}`);
    }
    return deleted;
  },
});
