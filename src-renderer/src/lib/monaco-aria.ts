/**
 * Monaco's announcements without its two empty alerts. The first editor of a page appends to <body> a
 * `.monaco-aria-container` (moved off screen) holding two `role="alert"` elements, empty until Monaco
 * says something ("No results", "Cannot edit in read-only editor"; it alternates between the two so a
 * message said twice is read twice). Empty, they were two alerts in the page that said nothing: an axe
 * or screen-reader user met them, and a test looking for the page's alert found them first.
 *
 * Here they keep what `role="alert"` gave them, an assertive, atomic live region (Monaco sets
 * `aria-atomic`), without the alert role: whatever Monaco writes there is still read out at once.
 */
export const MONACO_ALERTS = '.monaco-aria-container > .monaco-alert[role="alert"]';

/** Turns Monaco's alert regions under `root` into plain assertive live regions; idempotent. */
export function quietMonacoAlerts(root: ParentNode = document): void {
  for (const el of root.querySelectorAll(MONACO_ALERTS)) {
    el.setAttribute('aria-live', 'assertive');
    el.removeAttribute('role');
  }
}
