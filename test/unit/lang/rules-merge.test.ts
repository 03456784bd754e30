import { describe, expect, it } from 'vitest';
import { mergeRules } from '../../../src-main/core/lang/rules.ts';
import type { RuleModule } from '../../../src-main/core/lang/rules.ts';

type Node = { kind: string };
const log = (name: string, result?: false) => (n: Node, out: string[]) => {
  out.push(`${name}:${n.kind}`);
  return result;
};

describe('mergeRules', () => {
  const a: RuleModule<Node, string[]> = { Name: log('a'), Call: log('a') };
  const b: RuleModule<Node, string[]> = { '*': log('b*'), Call: log('b') };
  const c: RuleModule<Node, string[]> = { Name: log('c') };

  it('runs the handlers of a kind in module order, a module`s * before its own handler', () => {
    const { byKind, other } = mergeRules([a, b, c]);
    const out: string[] = [];
    byKind.get('Name')?.({ kind: 'Name' }, out);
    byKind.get('Call')?.({ kind: 'Call' }, out);
    other?.({ kind: 'Other' }, out);
    expect(out).toEqual(['a:Name', 'b*:Name', 'c:Name', 'a:Call', 'b*:Call', 'b:Call', 'b*:Other']);
  });

  it('keeps a lone handler as it is, and has no handler for other kinds without *', () => {
    const { byKind, other } = mergeRules([c]);
    expect(byKind.get('Name')).toBe(c['Name']);
    expect(other).toBeUndefined();
  });

  it('stops at a handler returning false and passes the false on (the driver skips the children)', () => {
    const stop: RuleModule<Node, string[]> = { Name: log('stop', false) };
    const { byKind } = mergeRules([a, stop, c]);
    const out: string[] = [];
    expect(byKind.get('Name')?.({ kind: 'Name' }, out)).toBe(false);
    expect(out).toEqual(['a:Name', 'stop:Name']);
  });
});
