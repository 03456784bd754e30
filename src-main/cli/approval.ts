/**
 * The CLI's answer to a tool call that needs approval (core/tools/approval.ts): asked on the terminal
 * (y/N, anything else refuses), one question at a time; without a terminal (a pipe, CI) it refuses and
 * says how to allow the call.
 */
import type { ApprovalAnswer, ApprovalAsk, ApprovalRequest } from '../core/tools/approval.ts';

/** What the terminal shows of a call: its tool, its line in the script and its arguments. */
export function approvalQuestion(r: ApprovalRequest): string {
  const args = JSON.stringify(r.args, null, 2);
  const shown = args.length > 2000 ? `${args.slice(0, 2000)}… (${args.length} characters)` : args;
  return [
    '',
    `toolsmith: the script wants to call ${r.tool}${r.alias ? ` (as ${r.alias})` : ''} in sandbox ${r.sandbox}${r.runId ? ` (run ${r.runId})` : ''}`,
    ...(r.line ? [`  line ${r.line}: ${r.text ?? ''}`] : []),
    `  arguments: ${shown.split('\n').join('\n  ')}`,
    'Allow this call? [y/N] ',
  ].join('\n');
}

export const NO_TERMINAL: ApprovalAnswer = {
  approved: false,
  via: 'cli',
  reason:
    'no terminal to ask on: run the command in a terminal, or remove the tool from [approval] in .toolsmith/config.toml',
};

export function terminalAsk(
  input: NodeJS.ReadStream = process.stdin,
  output: NodeJS.WriteStream = process.stderr,
): ApprovalAsk {
  let queue: Promise<unknown> = Promise.resolve();
  const one = (r: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    if (!input.isTTY) {
      output.write(`toolsmith: ${r.tool} needs approval; ${NO_TERMINAL.reason}\n`);
      return Promise.resolve(NO_TERMINAL);
    }
    if (signal.aborted)
      return Promise.resolve({ approved: false, via: 'cli', reason: 'the job ended before an answer' });
    return import('node:readline').then(
      ({ createInterface }) =>
        new Promise<ApprovalAnswer>((resolve) => {
          const rl = createInterface({ input, output, terminal: true });
          let settled = false;
          const done = (a: ApprovalAnswer) => {
            if (settled) return;
            settled = true;
            signal.removeEventListener('abort', onAbort);
            rl.close();
            resolve(a);
          };
          const onAbort = () => {
            output.write('\n(the job ended before an answer)\n');
            done({ approved: false, via: 'cli', reason: 'the job ended before an answer' });
          };
          signal.addEventListener('abort', onAbort, { once: true });
          rl.on('close', () => done({ approved: false, via: 'cli', reason: 'the terminal closed' }));
          rl.question(approvalQuestion(r), (line) => {
            const yes = /^\s*y(es)?\s*$/i.test(line);
            done(
              yes
                ? { approved: true, via: 'cli' }
                : { approved: false, via: 'cli', reason: 'refused on the terminal' },
            );
          });
        }),
    );
  };
  // One question at a time: concurrent calls of a script wait their turn on the terminal.
  return (r, signal) => {
    const next = queue.then(() => one(r, signal));
    queue = next.catch(() => {});
    return next;
  };
}
