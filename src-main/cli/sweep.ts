/**
 * The sweep of leftover containers at the start of a verb that may run a sandbox (context.ts; `runs
 * list` and `template list` never sweep, before main or in it: docs/reliability.md): the containers this installation's
 * stopped processes left are removed, and said on `err`. Docker's client loads only when the engine lists
 * a leftover (app/prune-light.ts); no engine is nothing to clean. `stop` (aborted by main's close after a
 * stop signal, context.ts) ends its wait on an engine that has not answered, Docker's client's included
 * (a leftover listed, then its removal not answered) and the light sweep's own listing: not swept now,
 * said on `err` in one set of words (`SweepStopped`). Never rejects.
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
    .catch((e: unknown) => {
      // (no engine: nothing to clean, nothing said)
      if (stop?.aborted && e instanceof Error && e.name === 'SweepStopped') err(`toolsmith: ${e.message}\n`);
    });
}
