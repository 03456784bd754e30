/**
 * Two processes write one workspace's store at once (two `eval`s side by side, each writing runs,
 * events and suite results): both complete, every run and result of both is there, nothing is lost or
 * left interrupted.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunStore } from '../../../src-main/infra/store/run-store.ts';
import { SuiteStore } from '../../../src-main/infra/store/suite-store.ts';
import { oracleAnswer } from '../../support/suite-oracle.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { cliProcess, installationContainers } from './support/processes.ts';

const fx = useScriptedWorkspace({ docker: true });
beforeAll(() => {
  fx.llm.responder = oracleAnswer;
});

describe('two processes, one store', () => {
  it('both evals complete and every run and result of both is stored', async () => {
    const a = cliProcess(fx.ws, fx.data, ['eval', 'ecommerce', '--models', 'local:a', '--json']);
    const b = cliProcess(fx.ws, fx.data, ['eval', 'ecommerce', '--models', 'local:b', '--json']);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.code, ra.err).toBe(0);
    expect(rb.code, rb.err).toBe(0);
    const ids = [JSON.parse(ra.out) as { id: string }, JSON.parse(rb.out) as { id: string }].map((v) => v.id);
    const store = new RunStore(join(fx.ws, '.toolsmith', 'runs.db'));
    try {
      const suites = new SuiteStore(store);
      for (const id of ids) {
        expect(suites.get(id)?.status).toBe('passed');
        expect(suites.results(id)).toHaveLength(8);
      }
      const all = store.list({ count: true });
      expect(all.total).toBe(16);
      expect(store.list({ status: 'succeeded', count: true }).total).toBe(16);
      for (const r of all.runs) {
        const rec = store.get(r.id)!;
        expect(rec.status).toBe('succeeded');
        // Every event of every run is there, in order, none missing.
        const seqs = store.events(r.id).map((e) => e.seq);
        expect(seqs).toEqual(seqs.map((_, i) => i));
      }
    } finally {
      store.close();
    }
    expect(await installationContainers(fx.data)).toEqual([]);
  }, 300_000);
});
