/**
 * Unsaved tools.py edits per sandbox: they outlive switching sandboxes and leaving the view (not a
 * reload). The sandbox list marks the sandboxes that have one.
 */
export const drafts = new Map<string, string>();
