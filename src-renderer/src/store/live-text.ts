/**
 * The text an LLM streams for an attempt, as the run view keeps it (pure: tested in node).
 */

/** The most of an attempt's streamed text the page keeps. */
export const MAX_LIVE_CHARS = 256 * 1024;

/**
 * The service's text of an attempt streamed so far (a run opened, or reconnected to, mid-stream), joined
 * with what this page heard itself: tokens pushed before the service's answer was made are in both
 * (the longest end of `streamed` that starts what was heard), those pushed after it only in `live`.
 */
export function withStreamed(
  live: Record<number, string>,
  streamed: { n: number; text: string } | undefined,
): Record<number, string> {
  if (!streamed) return live;
  const heard = live[streamed.n] ?? '';
  let k = Math.min(heard.length, streamed.text.length, 4096);
  while (k > 0 && !streamed.text.endsWith(heard.slice(0, k))) k--;
  return { ...live, [streamed.n]: (streamed.text + heard.slice(k)).slice(-MAX_LIVE_CHARS) };
}
