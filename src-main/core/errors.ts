/**
 * The one way to turn a caught value into words: an Error's message, a thrown object's `message`
 * string, a plain object as JSON (not `[object Object]`), else the value itself as text.
 */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null) {
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string') return message;
    try {
      return JSON.stringify(e) ?? String(e);
    } catch {
      return String(e);
    }
  }
  return String(e);
}
