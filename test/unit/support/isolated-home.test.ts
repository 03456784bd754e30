/**
 * The test run's own home (`test/support/isolated-home.ts`): a person's settings in the environment
 * (their default workspace, a forced backend, live trace export to their collector, provider keys) do not
 * reach any test, and are theirs again when the run ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import setup from '../../support/isolated-home.ts';

const PERSONAL = {
  TOOLSMITH_WORKSPACE: '/srv/person-tools',
  TOOLSMITH_BACKEND: 'process',
  TOOLSMITH_LOG_LEVEL: 'debug',
  OTEL_TRACES_EXPORTER: 'otlp',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.example:4318',
  OPENAI_API_KEY: 'sk-person',
  ANTHROPIC_API_KEY: 'sk-ant-person',
  NODE_USE_ENV_PROXY: '1',
};
const before = { ...process.env };

afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in before)) delete process.env[k];
  Object.assign(process.env, before);
});

describe('the test run’s home', () => {
  it('takes the person’s settings out of the environment for the run and gives them back after', async () => {
    Object.assign(process.env, PERSONAL, { TS_TEST_UNRELATED: 'kept' });
    const teardown = setup();
    try {
      for (const k of Object.keys(PERSONAL)) expect(process.env[k], k).toBeUndefined();
      expect(process.env['TS_TEST_UNRELATED']).toBe('kept');
      expect(process.env['PATH']).toBe(before['PATH']);
      // the run's own folders instead of the person's
      expect(process.env['TOOLSMITH_HOME']).toContain('toolsmith-test-home-');
      expect(process.env['TOOLSMITH_HOME']).not.toBe(before['TOOLSMITH_HOME']);
    } finally {
      await teardown();
    }
    for (const [k, v] of Object.entries(PERSONAL)) expect(process.env[k], k).toBe(v);
    expect(process.env['TOOLSMITH_HOME']).toBe(before['TOOLSMITH_HOME']);
  });
});
