/** The redactor of known secrets: every form a key takes in text, JSON and streamed pieces. */
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../../src-main/core/records/redact.ts';

const KEY = 'sk-live-0123456789"abc/+=';

describe('Redactor', () => {
  it('replaces the key, its URL-encoded and JSON-escaped forms', () => {
    const r = new Redactor();
    r.add(KEY);
    expect(r.text(`Bearer ${KEY}`)).toBe(`Bearer ${REDACTED}`);
    expect(r.text(`?key=${encodeURIComponent(KEY)}`)).toBe(`?key=${REDACTED}`);
    expect(r.text(JSON.stringify({ a: KEY }))).not.toContain('0123456789');
  });
  it('redacts deep values and object keys, sharing what is unchanged', () => {
    const r = new Redactor();
    r.add(KEY);
    const clean = { a: [1, 'x'] };
    const v = { clean, deep: { list: [`x ${KEY} y`] }, [KEY]: 1 };
    const out = r.value(v);
    expect(JSON.stringify(out)).not.toContain('0123456789');
    expect(out.clean).toBe(clean);
  });
  it('a key split across streamed pieces is still caught', () => {
    const r = new Redactor();
    r.add(KEY);
    let shown = '';
    const s = r.stream((p) => (shown += p));
    const text = `hello ${KEY} bye`;
    for (let i = 0; i < text.length; i += 3) s.push(text.slice(i, i + 3));
    s.end();
    expect(shown).toBe(`hello ${REDACTED} bye`);
  });
  it('short values are not secrets (they would rewrite ordinary text)', () => {
    const r = new Redactor();
    r.add('abc');
    r.add('');
    r.add(undefined);
    expect(r.size).toBe(0);
    expect(r.text('abc')).toBe('abc');
  });
});

describe('Redactor.value: keys that are special to JS objects', () => {
  it('a "__proto__" key stays an own key of the copy and gives it no prototype', () => {
    const r = new Redactor();
    r.add('sk-secret-value-1234');
    const input = JSON.parse(
      '{"__proto__": {"isAdmin": true, "k": "sk-secret-value-1234"}, "a": "sk-secret-value-1234"}',
    ) as Record<string, unknown>;
    const out = r.value(input);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { isAdmin?: boolean }).isAdmin).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out))).toEqual(
      JSON.parse('{"__proto__": {"isAdmin": true, "k": "[redacted]"}, "a": "[redacted]"}'),
    );
  });
});

describe('overlapping secrets', () => {
  it('two secrets that share characters are both hidden, whole', () => {
    const r = new Redactor();
    r.add('abcdefgh12');
    r.add('gh12345678');
    expect(r.text('key abcdefgh12345678 end')).toBe('key [redacted] end');
    expect(r.text('x gh12345678 y abcdefgh12 z')).toBe('x [redacted] y [redacted] z');
    // One secret inside another.
    r.add('cdefgh12');
    expect(r.text('abcdefgh12')).toBe('[redacted]');
    expect(r.text('nothing here')).toBe('nothing here');
  });
});

describe('the forms a tool writes a key in', () => {
  const key = 'pw-(Q9)+x/"é\\Rt7!';
  const r = new Redactor();
  r.add(key);
  it("Python's quote(safe='') (which encodes !'()* as well) and encodeURIComponent", () => {
    // What Python's urllib.parse.quote(key, safe="") printed.
    const pythonQuote = 'pw-%28Q9%29%2Bx%2F%22%C3%A9%5CRt7%21';
    expect(r.text(`?k=${pythonQuote}`)).toBe(`?k=${REDACTED}`);
    expect(r.text(`?k=${encodeURIComponent(key)}`)).toBe(`?k=${REDACTED}`);
  });
  it('JSON text inside JSON text, three levels deep, also with Python json.dumps ASCII escapes', () => {
    let nested: unknown = key;
    for (let i = 0; i < 3; i++) nested = JSON.stringify({ v: nested });
    expect(r.text(JSON.stringify(nested))).not.toMatch(/Q9/);
    // Python's json.dumps (ensure_ascii) writes é as \u00e9.
    const ascii = JSON.stringify(JSON.stringify({ v: key }).replace('é', '\\u00e9'));
    expect(r.text(ascii)).not.toMatch(/Q9/);
  });
  it("Python's repr (KeyError(key), f'{key!r}'), whichever quote it chose", () => {
    // What Python printed for KeyError(key), and for a key with ' but no ".
    expect(r.text(`KeyError: 'pw-(Q9)+x/"é\\\\Rt7!'`)).toBe(`KeyError: '${REDACTED}'`);
    const q = new Redactor();
    q.add("it's-a-Secret\\9");
    expect(q.text(`"it's-a-Secret\\\\9"`)).toBe(`"${REDACTED}"`);
  });
  it("a job's own redactor masks with *** and takes values from 4 characters", () => {
    const job = new Redactor('***', 4);
    job.add('abcd');
    expect(job.text('x abcd y')).toBe('x *** y');
  });
});
