/**
 * Constructs scripts do not need and that reach machinery they must not: global / nonlocal, async and
 * await (coroutines carry frames), generators (yield: generator objects carry frames), and classes (the
 * sandbox has no `__build_class__`, so a class could only fail at run time; and a class is where dunder
 * methods, metaclasses and attribute assignment would live).
 */
import { child, isAsync } from '../pyright.ts';
import type { PyHandler, PyRuleModule } from './context.ts';

const noGlobal =
  (keyword: string): PyHandler =>
  (n, ctx) =>
    ctx.at(n, 'no-global', `${keyword} statements are not needed: pass values as arguments and return them`);

const noYield: PyHandler = (n, ctx) =>
  ctx.at(n, 'no-yield', 'generators are not available: build a list and return it');

/** `async for` / `async with` / `[x async for x in y]`: pyright flags the node itself. */
const noAsyncBlock =
  (what: string): PyHandler =>
  (n, ctx) => {
    if (isAsync(n)) ctx.at(n, 'no-async', `${what} is not available: tools are called synchronously`);
  };

export const constructRules: PyRuleModule = {
  Global: noGlobal('global'),
  Nonlocal: noGlobal('nonlocal'),
  Await: (n, ctx) => ctx.at(n, 'no-async', 'await is not available: tools are called synchronously'),
  Yield: noYield,
  YieldFrom: noYield,
  // The flag, not the source text: decorators spanning lines, comments and line continuations between
  // them and `async def` change nothing.
  Function: (n, ctx) => {
    if (isAsync(n))
      ctx.at(child(n, 'name') ?? n, 'no-async', 'async functions are not available: write a plain def');
  },
  For: noAsyncBlock('async for'),
  With: noAsyncBlock('async with'),
  ComprehensionFor: noAsyncBlock('an async comprehension'),
  Class: (n, ctx) =>
    ctx.at(
      child(n, 'name') ?? n,
      'no-class',
      'class definitions are not available: keep records in dicts and write plain functions',
    ),
};
