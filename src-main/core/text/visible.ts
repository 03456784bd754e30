/**
 * Text a script chose, made safe to print on a person's terminal: every control character shows as a
 * visible escape instead of acting. C0 controls but tab and newline (ESC starts colour, title and
 * clipboard sequences such as OSC 52; CR and backspace overwrite what is on screen), DEL, the C1 range
 * (U+0080-U+009F: 8-bit CSI and OSC), and the bidirectional overrides and isolates that reorder what a
 * line appears to say. A newline starts a new line that begins with `continuation`, so no script text
 * appears at the start of a line of the tool's own output. Machine output (`--json`) is never passed here.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function visible(text: string, continuation = ''): string {
  const shown = text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return continuation ? shown.replace(/\n/g, `\n${continuation}`) : shown;
}
