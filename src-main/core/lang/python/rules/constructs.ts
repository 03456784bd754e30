/**
 * Constructs scripts do not need: global / nonlocal, async and await, generators, class keywords
 * (metaclass=...).
 */
import { child, childList, endOf, startOf, textOf } from '../pyright.ts';
import type { PyTreeNode as PyNode } from '../pyright.ts';
import type { PyHandler, PyRuleModule } from './context.ts';

const noGlobal =
  (keyword: string): PyHandler =>
  (n, ctx) =>
    ctx.at(n, 'no-global', `${keyword} statements are not needed: pass values as arguments and return them`);

const noYield: PyHandler = (n, ctx) =>
  ctx.at(n, 'no-yield', 'generators are not available: build a list and return it');

/** `async for` / `async with`: the tree marks neither, the source text does. */
const noAsyncBlock: PyHandler = (n, ctx) => {
  const source = ctx.parsed.source;
  if (/^async\b/.test(source.slice(startOf(n), startOf(n) + 6)))
    ctx.at(n, 'no-async', 'async for/with are not available');
};

export const constructRules: PyRuleModule = {
  Global: noGlobal('global'),
  Nonlocal: noGlobal('nonlocal'),
  Await: (n, ctx) => ctx.at(n, 'no-async', 'await is not available: tools are called synchronously'),
  Yield: noYield,
  YieldFrom: noYield,
  Function: (n, ctx) => {
    const first = ctx.parsed.source.slice(startOf(n), endOf(n));
    if (/^\s*(@[^\n]*\n\s*)*async\b/.test(first))
      ctx.at(child(n, 'name') ?? n, 'no-async', 'async functions are not available: write a plain def');
  },
  For: noAsyncBlock,
  With: noAsyncBlock,
  Class: (n, ctx) => {
    const kws = childList(n, 'arguments').filter((a) => textOf(a));
    if (kws.length)
      ctx.at(
        kws[0] as PyNode,
        'class-keywords',
        'class keywords such as metaclass= are not available; use plain classes or dicts',
      );
  },
};
