/**
 * Run traces seen from the workbench (Chromium, browser front end, scripted LLM, real sandbox, a real
 * OTLP receiver): a collector that answers an error leaves a notice naming the run, the endpoint and the
 * cause, and how to send the trace again (it said so only in the run log, which a workbench user does not
 * read); a collector that takes it shows nothing; a telemetry setting that is ignored is said too.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fence, startWorld } from './support/app.ts';
import type { E2eWorld } from './support/app.ts';
import { POLL_MS } from '../support/budgets.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import type { OtlpReceiver } from '../support/otlp-receiver.ts';

let w: E2eWorld;
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  w = await startWorld((ws) =>
    appendFileSync(
      join(ws, '.toolsmith', 'config.toml'),
      `\n[telemetry]\nenabled = true\nendpoint = "${receiver.base}"\nheaders = { "x-team-key" = "env:QA4_UNSET_OTLP_KEY" }\n`,
    ),
  );
});
afterAll(async () => {
  await w?.close();
  await receiver?.close();
});

async function startRun(task: string) {
  const { page } = w;
  await page.getByRole('navigation', { name: 'main' }).getByRole('button', { name: 'New run' }).click();
  await page.getByLabel('task').fill(task);
  await page.getByLabel('sandbox', { exact: true }).selectOption('ecommerce');
  await page.getByText('skip templates and rules').click();
  await page.getByRole('button', { name: 'Start run' }).click();
}
const status = () => w.page.locator('.run-detail').getAttribute('data-run-status');
const runIdOf = () => /#\/run\/([0-9a-f-]{36})/.exec(w.page.url())?.[1];

describe('run traces in the workbench', () => {
  it('a trace the collector refused is a notice naming the run, the endpoint and the cause', async () => {
    const { page, llm } = w;
    receiver.failWith = 503;
    llm.push(fence('r = get_user(user_id="u1")\nemit_result(r.data["city"])'));
    await startRun('City of user u1');
    await expect.poll(status, { timeout: 90_000 }).toBe('succeeded');
    const runId = runIdOf();
    expect(runId).toBeDefined();
    const short = runId!.slice(0, 8);
    const notice = page.locator('.notices [role="alert"]', { hasText: 'was not sent' });
    await notice.waitFor({ timeout: POLL_MS });
    expect(await notice.innerText()).toContain(
      `The trace of run ${short} was not sent: could not export to ${receiver.base}/v1/traces (HTTP 503: refused by the test). The run is kept: its Send trace (or \`toolsmith runs export ${short} --otlp\`) sends it again.`,
    );
    // The setting that was ignored is said as well (the header's variable is not set).
    const warning = page.locator('.notices [role="alert"]', { hasText: 'Telemetry:' });
    expect(await warning.innerText()).toContain(
      'Telemetry: [telemetry] header x-team-key: QA4_UNSET_OTLP_KEY is not set',
    );
    await w.screenshot('telemetry-trace-not-sent');
    expect(receiver.spans).toHaveLength(0);

    // Nothing is lost: once the collector takes traces, the run view's Send trace sends this run's, and
    // the notice of its failure goes.
    receiver.failWith = undefined;
    await page.getByRole('button', { name: 'Send trace' }).click();
    const sent = page.locator('.notices [role="status"]', { hasText: `Sent run ${short} as trace` });
    await sent.waitFor({ timeout: POLL_MS });
    expect(await sent.innerText()).toMatch(
      new RegExp(`Sent run ${short} as trace [0-9a-f]{32} \\(\\d+ spans\\) to ${receiver.base}/v1/traces\\.`),
    );
    await notice.waitFor({ state: 'detached', timeout: POLL_MS });
    expect(
      receiver.spans
        .filter((s) => s.name === 'invoke_agent toolsmith')
        .map((s) => s.attributes['toolsmith.run.id']),
    ).toEqual([runId]);
    await w.screenshot('telemetry-trace-sent-again');

    // A collector that refuses it again: Send trace says why, naming the endpoint.
    receiver.failWith = 401;
    await page.getByRole('button', { name: 'Send trace' }).click();
    const refused = page.locator('.notices [role="alert"]', { hasText: 'Send trace:' });
    await refused.waitFor({ timeout: POLL_MS });
    expect(await refused.innerText()).toContain(
      `Send trace: the OTLP endpoint ${receiver.base}/v1/traces did not take the trace: HTTP 401: refused by the test`,
    );
    // And what to do about it (it said where and why only).
    expect(await refused.innerText()).toContain(
      'The collector asks for credentials: set [telemetry] headers (or OTEL_EXPORTER_OTLP_HEADERS)',
    );
    await refused.getByRole('button', { name: 'dismiss' }).click();

    // The collector takes the next run's trace: no new failure is said.
    receiver.failWith = undefined;
    llm.push(fence('emit_result(get_user(user_id="u2").data["city"])'));
    await startRun('City of user u2');
    await expect.poll(status, { timeout: 90_000 }).toBe('succeeded');
    const second = runIdOf();
    expect(second).not.toBe(runId);
    await expect
      .poll(() => receiver.spans.some((s) => s.attributes['toolsmith.run.id'] === second), {
        timeout: POLL_MS,
      })
      .toBe(true);
    expect(await page.locator('.notices [role="alert"]', { hasText: 'was not sent' }).count()).toBe(0);
    expect(w.pageErrors).toEqual([]);
  });
});
