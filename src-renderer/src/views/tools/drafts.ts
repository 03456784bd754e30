/**
 * Unsaved tools.py edits per sandbox: they outlive switching sandboxes and leaving the view (not a
 * reload). The sandbox list marks the sandboxes that have one.
 */
import { trackUnsaved } from '../../lib/unsaved.ts';

export const drafts = new Map<string, string>();
trackUnsaved('tools.py', () => drafts.size);
