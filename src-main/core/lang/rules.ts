/**
 * Validator rule modules, shared by the Python and the JS validator. A rule module is a table of handlers
 * keyed by node kind (pyright's `ParseNodeType` name, Babel's `node.type`), plus `*` for every kind; each
 * validator's driver walks the tree once and calls, for each node, the one handler `mergeRules` built for
 * its kind. Several modules may handle the same kind: their handlers run in the order of the modules.
 */

/**
 * Looks at one node; returning `false` ends the node: the handlers after it do not run and its children
 * are not walked (an import statement is reported once, not once per name in it).
 */
export type RuleHandler<N, C> = (node: N, ctx: C) => boolean | void;

/** A rule module: handlers keyed by node kind; `*` handles every kind. */
export type RuleModule<N, C> = Readonly<Record<string, RuleHandler<N, C>>>;

/** Every kind's handler, and the handler of kinds no module names (the `*` handlers, if any). */
export interface MergedRules<N, C> {
  readonly byKind: ReadonlyMap<string, RuleHandler<N, C>>;
  readonly other: RuleHandler<N, C> | undefined;
}

function chain<N, C>(handlers: readonly RuleHandler<N, C>[]): RuleHandler<N, C> | undefined {
  if (handlers.length <= 1) return handlers[0];
  return (node, ctx) => {
    for (const h of handlers) if (h(node, ctx) === false) return false;
    return true;
  };
}

/**
 * One handler per node kind from rule modules, each module's handlers in module order (a module's `*`
 * handler where the module stands in the list).
 */
export function mergeRules<N, C>(modules: readonly RuleModule<N, C>[]): MergedRules<N, C> {
  const kinds = new Set(modules.flatMap((m) => Object.keys(m)).filter((k) => k !== '*'));
  const byKind = new Map<string, RuleHandler<N, C>>();
  for (const kind of kinds) {
    const handlers = modules.flatMap((m) => [m['*'], m[kind]].filter((h) => h !== undefined));
    const h = chain(handlers);
    if (h) byKind.set(kind, h);
  }
  return { byKind, other: chain(modules.flatMap((m) => (m['*'] ? [m['*']] : []))) };
}
