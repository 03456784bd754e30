/**
 * Unsaved tools.py edits per sandbox: they outlive switching sandboxes and leaving the view, and a reload
 * (kept in the tab's sessionStorage, lib/session-draft.ts: the page asked before a reload, and the edit
 * was gone after it). The sandbox list marks the sandboxes that have one.
 */
import { keptMap } from '../../lib/session-draft.ts';
import { trackUnsaved } from '../../lib/unsaved.ts';

export const drafts = keptMap('tools.py');
trackUnsaved('tools.py', () => drafts.size);

/**
 * The tool picked in Try tool, per sandbox, kept in the tab's session too: a reload showed the first tool
 * again (the URL names the sandbox only).
 */
export const pickedTools = keptMap('try-tool');

/**
 * What was typed in Try tool's form, per sandbox and tool (its values as JSON): a reload kept the tool
 * picked but emptied its arguments.
 */
export const triedArgs = keptMap('try-args');

/**
 * The outcome of the last call in Try tool, per sandbox and tool (try-tool.ts `outcomeToKeep`): a reload
 * kept the tool and its arguments but lost what the call answered. At most KEPT_OUTCOMES tools' (the
 * oldest go first), each shown after a reload as the result of an earlier call, with its time.
 */
export const triedOutcomes = keptMap('try-outcomes');
export const KEPT_OUTCOMES = 10;
