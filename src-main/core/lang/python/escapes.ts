/**
 * Python string-literal escapes decoded the way CPython decodes them (pyright's decoder turns every
 * `\N{...}` into "-" and `\U` beyond the BMP into a lone UTF-16 unit): `\\ \' \" \a \b \f \n \r \t \v`,
 * octal `\ooo`, `\xhh`, `\uXXXX`, `\UXXXXXXXX`, `\N{name}`, a backslash-newline continuation, and an
 * unknown escape kept as written. Raw literals keep every backslash; bytes have no `\u`, `\U` or `\N`.
 *
 * `\N{name}` names are looked up case-insensitively like CPython's `unicodedata.lookup`, in a table of
 * every name and alias of U+0000..U+00FF (generated from CPython's unicodedata 14.0, the sandbox's).
 * Every text a validator rule matches (dunder names, module and attribute names) is ASCII, so a name
 * outside the table decodes to U+FFFD: it can never complete such a text, as the real character could not.
 */

/** Name or alias -> code point, for U+0000..U+00FF. */
const NAMES: ReadonlyMap<string, number> = new Map<string, number>([
  ['NUL', 0x0],
  ['NULL', 0x0],
  ['SOH', 0x1],
  ['START OF HEADING', 0x1],
  ['START OF TEXT', 0x2],
  ['STX', 0x2],
  ['END OF TEXT', 0x3],
  ['ETX', 0x3],
  ['END OF TRANSMISSION', 0x4],
  ['EOT', 0x4],
  ['ENQ', 0x5],
  ['ENQUIRY', 0x5],
  ['ACK', 0x6],
  ['ACKNOWLEDGE', 0x6],
  ['ALERT', 0x7],
  ['BEL', 0x7],
  ['BACKSPACE', 0x8],
  ['BS', 0x8],
  ['CHARACTER TABULATION', 0x9],
  ['HORIZONTAL TABULATION', 0x9],
  ['HT', 0x9],
  ['TAB', 0x9],
  ['END OF LINE', 0xa],
  ['EOL', 0xa],
  ['LF', 0xa],
  ['LINE FEED', 0xa],
  ['NEW LINE', 0xa],
  ['NL', 0xa],
  ['LINE TABULATION', 0xb],
  ['VERTICAL TABULATION', 0xb],
  ['VT', 0xb],
  ['FF', 0xc],
  ['FORM FEED', 0xc],
  ['CARRIAGE RETURN', 0xd],
  ['CR', 0xd],
  ['LOCKING-SHIFT ONE', 0xe],
  ['SHIFT OUT', 0xe],
  ['SO', 0xe],
  ['LOCKING-SHIFT ZERO', 0xf],
  ['SHIFT IN', 0xf],
  ['SI', 0xf],
  ['DATA LINK ESCAPE', 0x10],
  ['DLE', 0x10],
  ['DC1', 0x11],
  ['DEVICE CONTROL ONE', 0x11],
  ['DC2', 0x12],
  ['DEVICE CONTROL TWO', 0x12],
  ['DC3', 0x13],
  ['DEVICE CONTROL THREE', 0x13],
  ['DC4', 0x14],
  ['DEVICE CONTROL FOUR', 0x14],
  ['NAK', 0x15],
  ['NEGATIVE ACKNOWLEDGE', 0x15],
  ['SYN', 0x16],
  ['SYNCHRONOUS IDLE', 0x16],
  ['END OF TRANSMISSION BLOCK', 0x17],
  ['ETB', 0x17],
  ['CAN', 0x18],
  ['CANCEL', 0x18],
  ['END OF MEDIUM', 0x19],
  ['EOM', 0x19],
  ['SUB', 0x1a],
  ['SUBSTITUTE', 0x1a],
  ['ESC', 0x1b],
  ['ESCAPE', 0x1b],
  ['FILE SEPARATOR', 0x1c],
  ['FS', 0x1c],
  ['INFORMATION SEPARATOR FOUR', 0x1c],
  ['GROUP SEPARATOR', 0x1d],
  ['GS', 0x1d],
  ['INFORMATION SEPARATOR THREE', 0x1d],
  ['INFORMATION SEPARATOR TWO', 0x1e],
  ['RECORD SEPARATOR', 0x1e],
  ['RS', 0x1e],
  ['INFORMATION SEPARATOR ONE', 0x1f],
  ['UNIT SEPARATOR', 0x1f],
  ['US', 0x1f],
  ['SP', 0x20],
  ['SPACE', 0x20],
  ['EXCLAMATION MARK', 0x21],
  ['QUOTATION MARK', 0x22],
  ['NUMBER SIGN', 0x23],
  ['DOLLAR SIGN', 0x24],
  ['PERCENT SIGN', 0x25],
  ['AMPERSAND', 0x26],
  ['APOSTROPHE', 0x27],
  ['LEFT PARENTHESIS', 0x28],
  ['RIGHT PARENTHESIS', 0x29],
  ['ASTERISK', 0x2a],
  ['PLUS SIGN', 0x2b],
  ['COMMA', 0x2c],
  ['HYPHEN-MINUS', 0x2d],
  ['FULL STOP', 0x2e],
  ['SOLIDUS', 0x2f],
  ['DIGIT ZERO', 0x30],
  ['DIGIT ONE', 0x31],
  ['DIGIT TWO', 0x32],
  ['DIGIT THREE', 0x33],
  ['DIGIT FOUR', 0x34],
  ['DIGIT FIVE', 0x35],
  ['DIGIT SIX', 0x36],
  ['DIGIT SEVEN', 0x37],
  ['DIGIT EIGHT', 0x38],
  ['DIGIT NINE', 0x39],
  ['COLON', 0x3a],
  ['SEMICOLON', 0x3b],
  ['LESS-THAN SIGN', 0x3c],
  ['EQUALS SIGN', 0x3d],
  ['GREATER-THAN SIGN', 0x3e],
  ['QUESTION MARK', 0x3f],
  ['COMMERCIAL AT', 0x40],
  ['LATIN CAPITAL LETTER A', 0x41],
  ['LATIN CAPITAL LETTER B', 0x42],
  ['LATIN CAPITAL LETTER C', 0x43],
  ['LATIN CAPITAL LETTER D', 0x44],
  ['LATIN CAPITAL LETTER E', 0x45],
  ['LATIN CAPITAL LETTER F', 0x46],
  ['LATIN CAPITAL LETTER G', 0x47],
  ['LATIN CAPITAL LETTER H', 0x48],
  ['LATIN CAPITAL LETTER I', 0x49],
  ['LATIN CAPITAL LETTER J', 0x4a],
  ['LATIN CAPITAL LETTER K', 0x4b],
  ['LATIN CAPITAL LETTER L', 0x4c],
  ['LATIN CAPITAL LETTER M', 0x4d],
  ['LATIN CAPITAL LETTER N', 0x4e],
  ['LATIN CAPITAL LETTER O', 0x4f],
  ['LATIN CAPITAL LETTER P', 0x50],
  ['LATIN CAPITAL LETTER Q', 0x51],
  ['LATIN CAPITAL LETTER R', 0x52],
  ['LATIN CAPITAL LETTER S', 0x53],
  ['LATIN CAPITAL LETTER T', 0x54],
  ['LATIN CAPITAL LETTER U', 0x55],
  ['LATIN CAPITAL LETTER V', 0x56],
  ['LATIN CAPITAL LETTER W', 0x57],
  ['LATIN CAPITAL LETTER X', 0x58],
  ['LATIN CAPITAL LETTER Y', 0x59],
  ['LATIN CAPITAL LETTER Z', 0x5a],
  ['LEFT SQUARE BRACKET', 0x5b],
  ['REVERSE SOLIDUS', 0x5c],
  ['RIGHT SQUARE BRACKET', 0x5d],
  ['CIRCUMFLEX ACCENT', 0x5e],
  ['LOW LINE', 0x5f],
  ['GRAVE ACCENT', 0x60],
  ['LATIN SMALL LETTER A', 0x61],
  ['LATIN SMALL LETTER B', 0x62],
  ['LATIN SMALL LETTER C', 0x63],
  ['LATIN SMALL LETTER D', 0x64],
  ['LATIN SMALL LETTER E', 0x65],
  ['LATIN SMALL LETTER F', 0x66],
  ['LATIN SMALL LETTER G', 0x67],
  ['LATIN SMALL LETTER H', 0x68],
  ['LATIN SMALL LETTER I', 0x69],
  ['LATIN SMALL LETTER J', 0x6a],
  ['LATIN SMALL LETTER K', 0x6b],
  ['LATIN SMALL LETTER L', 0x6c],
  ['LATIN SMALL LETTER M', 0x6d],
  ['LATIN SMALL LETTER N', 0x6e],
  ['LATIN SMALL LETTER O', 0x6f],
  ['LATIN SMALL LETTER P', 0x70],
  ['LATIN SMALL LETTER Q', 0x71],
  ['LATIN SMALL LETTER R', 0x72],
  ['LATIN SMALL LETTER S', 0x73],
  ['LATIN SMALL LETTER T', 0x74],
  ['LATIN SMALL LETTER U', 0x75],
  ['LATIN SMALL LETTER V', 0x76],
  ['LATIN SMALL LETTER W', 0x77],
  ['LATIN SMALL LETTER X', 0x78],
  ['LATIN SMALL LETTER Y', 0x79],
  ['LATIN SMALL LETTER Z', 0x7a],
  ['LEFT CURLY BRACKET', 0x7b],
  ['VERTICAL LINE', 0x7c],
  ['RIGHT CURLY BRACKET', 0x7d],
  ['TILDE', 0x7e],
  ['DEL', 0x7f],
  ['DELETE', 0x7f],
  ['PAD', 0x80],
  ['PADDING CHARACTER', 0x80],
  ['HIGH OCTET PRESET', 0x81],
  ['HOP', 0x81],
  ['BPH', 0x82],
  ['BREAK PERMITTED HERE', 0x82],
  ['NBH', 0x83],
  ['NO BREAK HERE', 0x83],
  ['IND', 0x84],
  ['INDEX', 0x84],
  ['NEL', 0x85],
  ['NEXT LINE', 0x85],
  ['SSA', 0x86],
  ['START OF SELECTED AREA', 0x86],
  ['END OF SELECTED AREA', 0x87],
  ['ESA', 0x87],
  ['CHARACTER TABULATION SET', 0x88],
  ['HTS', 0x88],
  ['CHARACTER TABULATION WITH JUSTIFICATION', 0x89],
  ['HTJ', 0x89],
  ['LINE TABULATION SET', 0x8a],
  ['VTS', 0x8a],
  ['PARTIAL LINE DOWN', 0x8b],
  ['PARTIAL LINE FORWARD', 0x8b],
  ['PLD', 0x8b],
  ['PARTIAL LINE BACKWARD', 0x8c],
  ['PARTIAL LINE UP', 0x8c],
  ['PLU', 0x8c],
  ['REVERSE INDEX', 0x8d],
  ['REVERSE LINE FEED', 0x8d],
  ['RI', 0x8d],
  ['SINGLE SHIFT TWO', 0x8e],
  ['SINGLE-SHIFT-2', 0x8e],
  ['SS2', 0x8e],
  ['SINGLE SHIFT THREE', 0x8f],
  ['SINGLE-SHIFT-3', 0x8f],
  ['SS3', 0x8f],
  ['DCS', 0x90],
  ['DEVICE CONTROL STRING', 0x90],
  ['PRIVATE USE ONE', 0x91],
  ['PRIVATE USE-1', 0x91],
  ['PU1', 0x91],
  ['PRIVATE USE TWO', 0x92],
  ['PRIVATE USE-2', 0x92],
  ['PU2', 0x92],
  ['SET TRANSMIT STATE', 0x93],
  ['STS', 0x93],
  ['CANCEL CHARACTER', 0x94],
  ['CCH', 0x94],
  ['MESSAGE WAITING', 0x95],
  ['MW', 0x95],
  ['SPA', 0x96],
  ['START OF GUARDED AREA', 0x96],
  ['START OF PROTECTED AREA', 0x96],
  ['END OF GUARDED AREA', 0x97],
  ['END OF PROTECTED AREA', 0x97],
  ['EPA', 0x97],
  ['SOS', 0x98],
  ['START OF STRING', 0x98],
  ['SGC', 0x99],
  ['SINGLE GRAPHIC CHARACTER INTRODUCER', 0x99],
  ['SCI', 0x9a],
  ['SINGLE CHARACTER INTRODUCER', 0x9a],
  ['CONTROL SEQUENCE INTRODUCER', 0x9b],
  ['CSI', 0x9b],
  ['ST', 0x9c],
  ['STRING TERMINATOR', 0x9c],
  ['OPERATING SYSTEM COMMAND', 0x9d],
  ['OSC', 0x9d],
  ['PM', 0x9e],
  ['PRIVACY MESSAGE', 0x9e],
  ['APC', 0x9f],
  ['APPLICATION PROGRAM COMMAND', 0x9f],
  ['NBSP', 0xa0],
  ['NO-BREAK SPACE', 0xa0],
  ['INVERTED EXCLAMATION MARK', 0xa1],
  ['CENT SIGN', 0xa2],
  ['POUND SIGN', 0xa3],
  ['CURRENCY SIGN', 0xa4],
  ['YEN SIGN', 0xa5],
  ['BROKEN BAR', 0xa6],
  ['SECTION SIGN', 0xa7],
  ['DIAERESIS', 0xa8],
  ['COPYRIGHT SIGN', 0xa9],
  ['FEMININE ORDINAL INDICATOR', 0xaa],
  ['LEFT-POINTING DOUBLE ANGLE QUOTATION MARK', 0xab],
  ['NOT SIGN', 0xac],
  ['SHY', 0xad],
  ['SOFT HYPHEN', 0xad],
  ['REGISTERED SIGN', 0xae],
  ['MACRON', 0xaf],
  ['DEGREE SIGN', 0xb0],
  ['PLUS-MINUS SIGN', 0xb1],
  ['SUPERSCRIPT TWO', 0xb2],
  ['SUPERSCRIPT THREE', 0xb3],
  ['ACUTE ACCENT', 0xb4],
  ['MICRO SIGN', 0xb5],
  ['PILCROW SIGN', 0xb6],
  ['MIDDLE DOT', 0xb7],
  ['CEDILLA', 0xb8],
  ['SUPERSCRIPT ONE', 0xb9],
  ['MASCULINE ORDINAL INDICATOR', 0xba],
  ['RIGHT-POINTING DOUBLE ANGLE QUOTATION MARK', 0xbb],
  ['VULGAR FRACTION ONE QUARTER', 0xbc],
  ['VULGAR FRACTION ONE HALF', 0xbd],
  ['VULGAR FRACTION THREE QUARTERS', 0xbe],
  ['INVERTED QUESTION MARK', 0xbf],
  ['LATIN CAPITAL LETTER A WITH GRAVE', 0xc0],
  ['LATIN CAPITAL LETTER A WITH ACUTE', 0xc1],
  ['LATIN CAPITAL LETTER A WITH CIRCUMFLEX', 0xc2],
  ['LATIN CAPITAL LETTER A WITH TILDE', 0xc3],
  ['LATIN CAPITAL LETTER A WITH DIAERESIS', 0xc4],
  ['LATIN CAPITAL LETTER A WITH RING ABOVE', 0xc5],
  ['LATIN CAPITAL LETTER AE', 0xc6],
  ['LATIN CAPITAL LETTER C WITH CEDILLA', 0xc7],
  ['LATIN CAPITAL LETTER E WITH GRAVE', 0xc8],
  ['LATIN CAPITAL LETTER E WITH ACUTE', 0xc9],
  ['LATIN CAPITAL LETTER E WITH CIRCUMFLEX', 0xca],
  ['LATIN CAPITAL LETTER E WITH DIAERESIS', 0xcb],
  ['LATIN CAPITAL LETTER I WITH GRAVE', 0xcc],
  ['LATIN CAPITAL LETTER I WITH ACUTE', 0xcd],
  ['LATIN CAPITAL LETTER I WITH CIRCUMFLEX', 0xce],
  ['LATIN CAPITAL LETTER I WITH DIAERESIS', 0xcf],
  ['LATIN CAPITAL LETTER ETH', 0xd0],
  ['LATIN CAPITAL LETTER N WITH TILDE', 0xd1],
  ['LATIN CAPITAL LETTER O WITH GRAVE', 0xd2],
  ['LATIN CAPITAL LETTER O WITH ACUTE', 0xd3],
  ['LATIN CAPITAL LETTER O WITH CIRCUMFLEX', 0xd4],
  ['LATIN CAPITAL LETTER O WITH TILDE', 0xd5],
  ['LATIN CAPITAL LETTER O WITH DIAERESIS', 0xd6],
  ['MULTIPLICATION SIGN', 0xd7],
  ['LATIN CAPITAL LETTER O WITH STROKE', 0xd8],
  ['LATIN CAPITAL LETTER U WITH GRAVE', 0xd9],
  ['LATIN CAPITAL LETTER U WITH ACUTE', 0xda],
  ['LATIN CAPITAL LETTER U WITH CIRCUMFLEX', 0xdb],
  ['LATIN CAPITAL LETTER U WITH DIAERESIS', 0xdc],
  ['LATIN CAPITAL LETTER Y WITH ACUTE', 0xdd],
  ['LATIN CAPITAL LETTER THORN', 0xde],
  ['LATIN SMALL LETTER SHARP S', 0xdf],
  ['LATIN SMALL LETTER A WITH GRAVE', 0xe0],
  ['LATIN SMALL LETTER A WITH ACUTE', 0xe1],
  ['LATIN SMALL LETTER A WITH CIRCUMFLEX', 0xe2],
  ['LATIN SMALL LETTER A WITH TILDE', 0xe3],
  ['LATIN SMALL LETTER A WITH DIAERESIS', 0xe4],
  ['LATIN SMALL LETTER A WITH RING ABOVE', 0xe5],
  ['LATIN SMALL LETTER AE', 0xe6],
  ['LATIN SMALL LETTER C WITH CEDILLA', 0xe7],
  ['LATIN SMALL LETTER E WITH GRAVE', 0xe8],
  ['LATIN SMALL LETTER E WITH ACUTE', 0xe9],
  ['LATIN SMALL LETTER E WITH CIRCUMFLEX', 0xea],
  ['LATIN SMALL LETTER E WITH DIAERESIS', 0xeb],
  ['LATIN SMALL LETTER I WITH GRAVE', 0xec],
  ['LATIN SMALL LETTER I WITH ACUTE', 0xed],
  ['LATIN SMALL LETTER I WITH CIRCUMFLEX', 0xee],
  ['LATIN SMALL LETTER I WITH DIAERESIS', 0xef],
  ['LATIN SMALL LETTER ETH', 0xf0],
  ['LATIN SMALL LETTER N WITH TILDE', 0xf1],
  ['LATIN SMALL LETTER O WITH GRAVE', 0xf2],
  ['LATIN SMALL LETTER O WITH ACUTE', 0xf3],
  ['LATIN SMALL LETTER O WITH CIRCUMFLEX', 0xf4],
  ['LATIN SMALL LETTER O WITH TILDE', 0xf5],
  ['LATIN SMALL LETTER O WITH DIAERESIS', 0xf6],
  ['DIVISION SIGN', 0xf7],
  ['LATIN SMALL LETTER O WITH STROKE', 0xf8],
  ['LATIN SMALL LETTER U WITH GRAVE', 0xf9],
  ['LATIN SMALL LETTER U WITH ACUTE', 0xfa],
  ['LATIN SMALL LETTER U WITH CIRCUMFLEX', 0xfb],
  ['LATIN SMALL LETTER U WITH DIAERESIS', 0xfc],
  ['LATIN SMALL LETTER Y WITH ACUTE', 0xfd],
  ['LATIN SMALL LETTER THORN', 0xfe],
  ['LATIN SMALL LETTER Y WITH DIAERESIS', 0xff],
]);

/** The code point CPython's `\N{name}` gives, U+FFFD for a name outside the table (see above). */
export function lookupUnicodeName(name: string): number {
  return NAMES.get(name.toUpperCase()) ?? 0xfffd;
}

const hexAt = (s: string, i: number, n: number): number | undefined => {
  const h = s.slice(i, i + n);
  return h.length === n && /^[0-9A-Fa-f]+$/.test(h) ? parseInt(h, 16) : undefined;
};

/**
 * Decodes the text between a literal's quotes. `raw` and `bytes` follow the prefix (`r`, `b`); an
 * f-string's literal parts decode the same way (`{{`/`}}` are the caller's business).
 */
export function decodePythonEscapes(text: string, opts: { raw?: boolean; bytes?: boolean } = {}): string {
  if (opts.raw || !text.includes('\\')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const j = text.indexOf('\\', i);
    if (j < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, j);
    const c = text[j + 1];
    i = j + 2;
    switch (c) {
      case undefined:
        out += '\\';
        break;
      case '\n':
        break;
      case '\r':
        if (text[i] === '\n') i++;
        break;
      case '\\':
      case "'":
      case '"':
        out += c;
        break;
      case 'a':
        out += '\x07';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x': {
        const v = hexAt(text, i, 2);
        if (v === undefined) out += '\\x';
        else {
          out += String.fromCharCode(v);
          i += 2;
        }
        break;
      }
      case 'u':
      case 'U': {
        const n = c === 'u' ? 4 : 8;
        const v = opts.bytes ? undefined : hexAt(text, i, n);
        if (v === undefined || v > 0x10ffff) out += `\\${c}`;
        else {
          out += String.fromCodePoint(v);
          i += n;
        }
        break;
      }
      case 'N': {
        const end = text.indexOf('}', i);
        if (opts.bytes || text[i] !== '{' || end < 0) {
          out += '\\N';
          break;
        }
        out += String.fromCodePoint(lookupUnicodeName(text.slice(i + 1, end)));
        i = end + 1;
        break;
      }
      default:
        if (c >= '0' && c <= '7') {
          let k = i - 1;
          let v = 0;
          while (k < i + 2 && k < text.length && (text[k] as string) >= '0' && (text[k] as string) <= '7')
            v = v * 8 + Number(text[k++]);
          out += String.fromCodePoint(opts.bytes ? v & 0xff : v);
          i = k;
        } else out += `\\${c}`;
    }
  }
  return out;
}
