/**
 * The sweep of leftover containers at a verb's start (context.ts for main's verbs, store-verbs.ts for
 * `runs list` and `template list` answered before main loads): the containers this installation's
 * stopped processes left are removed, and said on `err`. Docker's client loads only when the engine lists
 * a leftover (app/prune-light.ts); no engine is nothing to clean. `stop` (aborted by main's close after a
 * stop signal, context.ts) ends its wait on an engine that has not answered: not swept now. Never rejects.
 */
export function sweepLeftovers(err: (text: string) => void, stop?: AbortSignal): Promise<unknown> {
  return import('../app/prune-light.ts')
    .then((m) => m.pruneLeftoverContainersLight(stop))
    .then((gone) => {
      if (gone.length)
        err(
          `toolsmith: removed ${gone.length} container(s) left by stopped Toolsmith processes of this installation\n`,
        );
    })
    .catch(() => {}); // no engine: nothing to clean
}
