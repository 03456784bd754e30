/**
 * The Tools view's server state: the sandbox list's refresh, and the saved tools.py of the open sandbox
 * (its tools, problems, prompt and schemas as `tools.list` returns them) with loading and saving. The
 * editor's text, drafts and live extraction stay in the view.
 */
import type { StateCreator } from 'zustand';
import type { Response } from '../../../src-main/contract/api.ts';
import { api, errorMessage } from '../api/client.ts';
import type { Store } from './index.ts';

export type ToolsListing = Response<'tools.list'>;

/** A save's answer, and the file as read from disk since when that is another text. */
export type ToolsSaved = Response<'tools.save'> & {
  /**
   * A listing read after this save was asked for came back first with another text (another editor
   * wrote the file after this save did): that newer file is what the store shows, and the view must not
   * mark the saved text as the file's.
   */
  newer?: ToolsListing;
};

export interface ToolsSlice {
  /** The sandbox whose listing is loaded or loading (the one open in the Tools view). */
  toolsSandbox?: string;
  toolsListed?: ToolsListing;
  toolsLoadError?: string;
  /** Re-reads the sandbox list; throws when the service does not answer. */
  reloadSandboxes(): Promise<void>;
  /** Loads a sandbox's saved tools; resolves to the listing, or undefined on failure or when superseded. */
  loadTools(sandbox: string): Promise<ToolsListing | undefined>;
  /** Forgets the listing of a sandbox the view no longer shows. */
  closeTools(sandbox: string): void;
  /**
   * Saves tools.py (the service hot-reloads the sandbox), announces it and refreshes the sandbox list's
   * counts; throws (after announcing) when the save fails.
   */
  saveTools(sandbox: string, source: string): Promise<ToolsSaved>;
}

/**
 * Bumped by every read of the listing: an answer to an older read is not shown. Two reads on the way at
 * once (the file changed twice) can answer out of order, and the older one described the file before the
 * second change: the editor went back to that text (a later save wrote it back).
 */
let listingSeq = 0;
/**
 * The reads up to this one were asked for before a save that has answered since: they may not have seen
 * it, so an answer of theirs that comes later is not shown.
 */
let staleUpTo = 0;
/** The read whose listing is shown, and its text. */
let shownRead: { sandbox: string; seq: number; listed: ToolsListing } | undefined;

export const createToolsSlice: StateCreator<Store, [], [], ToolsSlice> = (set, get) => ({
  async reloadSandboxes() {
    set({ sandboxes: await api['sandboxes.list']({}) });
  },
  async loadTools(sandbox) {
    // Read again for the sandbox already shown (a change on disk), the listing stays until the new one
    // is here: the view keeps its editor (and what it holds) instead of going back to "Loading".
    const again = get().toolsSandbox === sandbox && get().toolsListed !== undefined;
    set({
      toolsSandbox: sandbox,
      toolsLoadError: undefined,
      ...(again ? {} : { toolsListed: undefined }),
    });
    const seq = ++listingSeq;
    try {
      const listed = await api['tools.list']({ sandbox });
      if (get().toolsSandbox !== sandbox) return undefined;
      // A newer read was asked for since (or a save this read came before has answered): its listing is
      // the one shown (to the caller too, once it is here; until then this one, which the newer one
      // replaces).
      if (seq !== listingSeq || seq <= staleUpTo) return get().toolsListed ?? listed;
      // The sandbox list counts what the view shows (an MCP-only sandbox's tools arrive once its servers
      // answered: the list must not keep saying "0 tools").
      const fromMcp = listed.tools.filter((t) => t.mcp).length;
      shownRead = { sandbox, seq, listed };
      set({
        toolsListed: listed,
        sandboxes: get().sandboxes.map((s) =>
          s.name === sandbox
            ? {
                ...s,
                tools: listed.tools.length,
                problems: listed.problems.length,
                ...(s.mcpServers ? { fromMcp } : {}),
              }
            : s,
        ),
      });
      return listed;
    } catch (e) {
      if (get().toolsSandbox === sandbox && seq === listingSeq && seq > staleUpTo)
        set({ toolsLoadError: errorMessage(e) });
      return undefined;
    }
  },
  closeTools(sandbox) {
    if (get().toolsSandbox === sandbox)
      set({ toolsSandbox: undefined, toolsListed: undefined, toolsLoadError: undefined });
  },
  async saveTools(sandbox, source) {
    // The reads asked for before this save; those asked for after it may describe a newer file.
    const asked = listingSeq;
    let r: Response<'tools.save'>;
    try {
      r = await api['tools.save']({ sandbox, source });
    } catch (e) {
      get().notify('error', `Could not save ${sandbox}/tools.py: ${errorMessage(e)}`);
      throw e;
    }
    let newer: ToolsListing | undefined;
    if (get().toolsSandbox === sandbox) {
      // (a read still on its way that was asked for before this save may not have seen it)
      staleUpTo = Math.max(staleUpTo, asked);
      // The service answers a save once the sandbox's workers have reloaded: meanwhile the file may have
      // changed on disk again (another editor), and the read the watcher made of it shown. That newer
      // text stays; before, the save's answer replaced it and the editor went back to the saved text,
      // the file's newer one lost from view. (A read after this save still on its way replaces this
      // answer when it comes: it is the newer.)
      if (shownRead?.sandbox === sandbox && shownRead.seq > asked && shownRead.listed.source !== source)
        newer = shownRead.listed;
      else set({ toolsListed: { ...r, source } });
    }
    get().notify('info', `Saved ${sandbox}/tools.py: ${r.tools.length} tools, sandbox reloaded.`);
    // Keep the sandbox list's counts in step with the file.
    get()
      .reloadSandboxes()
      .catch((e: unknown) => get().notify('error', `Could not refresh the sandboxes: ${errorMessage(e)}`));
    return newer ? { ...r, newer } : r;
  },
});
