/** Script text on a person's terminal: every control character shows as an escape and never acts. */
import { describe, expect, it } from 'vitest';
import { visible } from '../../../src-main/core/text/visible.ts';

describe('visible', () => {
  it.each([
    ['a clipboard write (OSC 52)', '\u001b]52;c;ZWNobyBwd25lZA==\u0007', '\\x1b]52;c;ZWNobyBwd25lZA==\\x07'],
    ['a title set (OSC 0, ST-terminated)', '\u001b]0;owned\u001b\\', '\\x1b]0;owned\\x1b\\'],
    ['a cursor move up and line erase', 'ok\u001b[2A\u001b[2K', 'ok\\x1b[2A\\x1b[2K'],
    ['a carriage return overwriting the line', 'rm -rf /\rsafe', 'rm -rf /\\x0dsafe'],
    ['backspaces', 'abc\b\b\bxyz', 'abc\\x08\\x08\\x08xyz'],
    ['an 8-bit CSI and OSC (C1)', '\u009b31m\u009d0;t\u009c', '\\x9b31m\\x9d0;t\\x9c'],
    ['DEL and NUL', 'a\u007fb\u0000', 'a\\x7fb\\x00'],
    ['a bidi override (trojan text)', 'ok \u202eevil\u202c', 'ok \\u202eevil\\u202c'],
  ])('%s shows as escapes', (_what, text, shown) => {
    const out = visible(text);
    expect(out).toBe(shown);
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });

  it('keeps tabs, newlines and ordinary Unicode; continuation lines start with the given prefix', () => {
    expect(visible('a\tb — é 日本')).toBe('a\tb — é 日本');
    expect(visible('one\nresult: forged', '  log| ')).toBe('one\n  log| result: forged');
    expect(visible('one\ntwo')).toBe('one\ntwo');
  });
});
