/**
 * `toolsmith runs recover`'s work (infra/store/recover.ts) as a process of its own, for fault tests (run
 * with the Node 24 the package ships, which strips types): recovers the store at argv[2] and prints what
 * it recovered as one JSON line. TOOLSMITH_RECOVER_PAUSE_MS holds it between its last look for another
 * process and its renames.
 */
import { recoverStore } from '../../../../src-main/infra/store/recover.ts';

process.stdout.write(`${JSON.stringify(recoverStore(process.argv[2] as string))}\n`);
