/**
 * The clocks under a run: a process stopped (SIGSTOP) with an LLM call in flight, and the wall clock
 * stepped back two hours mid-run (libfaketime, Debian's `faketime`, shifts the clock of that process
 * only). A deadline that passed while the process was not running says so; durations and the order of
 * events come from a clock that never steps back.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { withProviderLines } from '../../support/workspace.ts';
import { cliProcess } from './support/processes.ts';

const fx = useScriptedWorkspace({ dataPerTest: true, eachTest: () => {} });

/** The provider's deadlines: a short whole-call deadline, no retries. */
function deadlines(totalMs: number): void {
  const file = join(fx.ws, '.toolsmith', 'config.toml');
  const text = withProviderLines(
    readFileSync(file, 'utf8'),
    `total_timeout_ms = ${totalMs}\nmax_retries = 0`,
  );
  writeFileSync(file, text);
}

const FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

describe('clocks', () => {
  it('SIGSTOP with an LLM call in flight: the deadline says the process was suspended, not the provider slow', async () => {
    deadlines(4000);
    fx.llm.fallback = { text: 'no code', delayMs: 30_000 };
    const p = cliProcess(fx.ws, fx.data, ['run', 'list the orders', '--sandbox', 'ecommerce']);
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(0), { timeout: 60_000 });
    p.child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 7000));
    p.child.kill('SIGCONT');
    const r = await p.done;
    expect(r.code).toBe(1);
    expect(r.out + r.err).toMatch(
      /no complete answer within 4 s \(total_timeout_ms\); the deadline passed while this process was suspended \(not running\) for \d+(\.\d)? s of that time/,
    );
    expect(r.err).not.toMatch(/internal error/);
  }, 120_000);

  it('the wall clock stepped back 2 h mid-run: the duration is the real one, events stay in order', async () => {
    fx.llm.push({ text: 'no code', delayMs: 3000 });
    fx.llm.fallback = { text: 'no code' };
    const clock = join(fx.data, 'faketime');
    writeFileSync(clock, '+0');
    const p = cliProcess(fx.ws, fx.data, ['run', 'count the orders', '--sandbox', 'ecommerce'], {
      LD_PRELOAD: FAKETIME,
      FAKETIME_TIMESTAMP_FILE: clock,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    });
    await vi.waitFor(() => expect(fx.llm.requests.length).toBeGreaterThan(0), { timeout: 60_000 });
    writeFileSync(clock, '-2h');
    const r = await p.done;
    expect(r.code).toBe(1);
    const list = await cliProcess(fx.ws, fx.data, ['runs', 'list', '--json']).done;
    const run = (JSON.parse(list.out) as { runs: { id: string; durationMs: number }[] }).runs[0]!;
    expect(run.durationMs).toBeGreaterThanOrEqual(2500);
    expect(run.durationMs).toBeLessThan(3_600_000);
    const exported = await cliProcess(fx.ws, fx.data, ['runs', 'export', run.id]).done;
    const ts = (JSON.parse(exported.out) as { events: { ts: number }[] }).events.map((e) => e.ts);
    expect(ts.length).toBeGreaterThan(2);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
  }, 120_000);
});
