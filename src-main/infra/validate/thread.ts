/**
 * A validation thread of the ParallelValidator (parallel.ts): for each job, takes pieces of the script
 * (shared with the caller and the other threads, see `takePiece`) until none is left, validates each with
 * the core validator, answers on its port and bumps SIGNAL so that the caller, blocked in `Atomics.wait`,
 * wakes up and reads the answers with `receiveMessageOnPort`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { validatePythonChunked, validatePythonPart } from '../../core/lang/python/validate.ts';
import { READY, SIGNAL, takePiece, warmUpScript } from './shared.ts';
import type { JobRequest, PieceReply } from './shared.ts';
import { errorMessage } from '../../core/errors.ts';

const {
  state: buffer,
  port,
  slot,
} = workerData as {
  state: SharedArrayBuffer;
  port: MessagePort;
  slot: number;
};
const state = new Int32Array(buffer);

port.on('message', (job: JobRequest) => {
  for (;;) {
    const index = takePiece(state, job.generation, job.pieces.length);
    if (index < 0) return;
    const piece = job.pieces[index] as { code: string; firstLine: number };
    let reply: PieceReply;
    try {
      reply = { id: job.id, index, part: validatePythonPart(piece.code, job.options, piece.firstLine) };
    } catch (e) {
      reply = { id: job.id, index, error: errorMessage(e) };
    }
    port.postMessage(reply);
    Atomics.add(state, SIGNAL, 1);
    Atomics.notify(state, SIGNAL);
  }
});

// Compile the validator's hot paths before the first real job (a cold thread is several times slower).
const warm = warmUpScript();
for (let i = 0; i < 12; i++) validatePythonChunked(warm, { tools: ['get_orders'] });
Atomics.store(state, READY + slot, 1);
parentPort?.postMessage('ready');
