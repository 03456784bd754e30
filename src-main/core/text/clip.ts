/**
 * At most `max` characters of someone else's words (a server's error, a model's refusal, a process's
 * stderr), cut before a token rather than inside one, with `…` where words were left off. A key or token
 * echoed in them (a proxy quoting the Authorization header, a server printing its environment) is then
 * shown whole, where the redactor (core/records/redact.ts) finds it, or not at all: a cut inside it showed
 * its first characters, which no redactor recognises.
 */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  // (the run of characters a key or token is made of, at the cut's end, is dropped whole)
  return `${text
    .slice(0, max)
    .replace(/[\w\-.+/=~:%$#@!*]*$/u, '')
    .trimEnd()}…`;
}
