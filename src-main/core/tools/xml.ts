/** Escapes element content: `&`, `<` and `>` (quotes stay readable for the LLM). */
export function escapeText(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Escapes attribute values: the five XML special characters. */
export function escapeAttr(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** `<tag>escaped text</tag>` on its own line, or nothing for undefined/empty text. */
export function element(tag: string, text: string | undefined, indent = ''): string {
  if (text === undefined || text === '') return '';
  return `${indent}<${tag}>${escapeText(text)}</${tag}>\n`;
}

export function attrs(values: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`)
    .join('');
}
