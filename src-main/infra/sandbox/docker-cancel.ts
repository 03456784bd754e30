/**
 * Docker's client (dockerode) on the same engine, its requests cancelled by a stop: each request made
 * through it carries an abort signal (docker-modem 5 passes a dial's `abortSignal` to the HTTP request)
 * that `stop` aborts until the engine has answered that request. Once answered, a request is no longer
 * tied to `stop`: a stream it opened (the OOM events, an attached container) outlives the stop, which
 * only ends what still waits on the engine. Used where a stop signal during start must not wait on an
 * engine that answered its version and then hangs: the worker factory's start (docker.ts), a worker's
 * making (docker.ts `spawn`: the container's create, attach and start) and the leftover sweep's removals
 * (app/prune.ts). With `streams`, an answered request's stream (an image build's progress, an import's)
 * is ended by the stop too: the sandbox images' check and build (app/sandbox-factory.ts), where the
 * stream is the work itself (a build the engine no longer moves on never ends it). A request the stop
 * cut rejects with `StopCut`, so that a caller that reads a failure as an answer (`imageExists`: "not
 * there") can tell a stop from it.
 */
import type Docker from 'dockerode';

type Dial = (
  options: { method?: string; path?: string },
  callback: (err: unknown, data: unknown) => void,
) => void;

export interface CancelledByStop {
  /** The client whose requests `stop` cancels until answered. */
  readonly docker: Docker;
  /** The requests the stop cut short (`GET /containers/json`), in the order they were made. */
  readonly cut: string[];
}

/** The stop of a client made by `cancelledByStop` (dockerBuild reads it: a cut build is not a failed one). */
const stops = new WeakMap<object, AbortSignal>();
export const stopOf = (docker: Docker): AbortSignal | undefined => stops.get(docker);

/** A request (or its answered stream, with `streams`) cut short by the stop. */
export class StopCut extends Error {
  override name = 'AbortError';
}

export function cancelledByStop(
  docker: Docker,
  stop: AbortSignal,
  opts: { streams?: boolean } = {},
): CancelledByStop {
  const base = docker.modem as unknown as { dial: Dial };
  const modem = Object.create(base) as { dial: Dial };
  const cut: string[] = [];
  modem.dial = (options, callback) => {
    const what = `${options.method ?? 'GET'} ${(options.path ?? '').split('?')[0]}`;
    if (stop.aborted) {
      cut.push(what);
      callback(stopError(stop), null);
      return;
    }
    const ask = new AbortController();
    const onStop = () => {
      cut.push(what);
      ask.abort(stopError(stop));
    };
    stop.addEventListener('abort', onStop, { once: true });
    base.dial.call(modem, { ...options, abortSignal: ask.signal } as typeof options, (err, data) => {
      stop.removeEventListener('abort', onStop);
      if (err) return callback(stop.aborted ? stopError(stop) : err, data);
      const stream = data as { destroy?: (e?: Error) => void; once?: (e: string, f: () => void) => void };
      if (opts.streams && typeof stream?.destroy === 'function' && typeof stream.once === 'function') {
        // (the answered stream is the work: ended by the stop, said as the request it answers)
        const end = () => {
          cut.push(what);
          stream.destroy?.(stopError(stop));
        };
        if (stop.aborted) queueMicrotask(end);
        else {
          stop.addEventListener('abort', end, { once: true });
          stream.once('close', () => stop.removeEventListener('abort', end));
        }
      }
      callback(null, data);
    });
  };
  // dockerode's objects (a container, an image) take the client's modem: made through this one, theirs.
  const client = Object.create(docker) as Docker;
  (client as { modem: unknown }).modem = modem;
  stops.set(client, stop);
  return { docker: client, cut };
}

function stopError(stop: AbortSignal): Error {
  return new StopCut(
    `cancelled by a stop before the engine answered${typeof stop.reason === 'string' ? ` (${stop.reason})` : ''}`,
  );
}
