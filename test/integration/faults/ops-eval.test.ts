/**
 * An engine outage during `toolsmith eval` is an infrastructure error, not a test failure: the cells
 * read `ERROR`, JUnit counts them under errors (failures="0"), the JSON marks each result `infra` and
 * the process exits 3 (not 1, which says a case failed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { oracleAnswer } from '../../support/suite-oracle.ts';
import { useScriptedWorkspace } from '../../support/scripted-workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

const fx = useScriptedWorkspace();

const cli = (args: string[], env: Record<string, string>) =>
  runToolsmith(fx.ws, args, { TOOLSMITH_DATA_DIR: fx.data, ...env });

describe('eval while the sandbox engine is down', () => {
  it('counts infrastructure errors as errors, not failures, in the matrix, JSON and JUnit', async () => {
    fx.llm.responder = oracleAnswer;
    const junit = join(fx.ws, 'junit-outage.xml');
    const r = await cli(['eval', 'ecommerce', '--models', 'local:good', '--json', '--junit', junit], {
      DOCKER_HOST: `unix://${join(fx.data, 'no-engine.sock')}`,
      TOOLSMITH_BACKEND: 'docker',
    });
    expect(r.err).toMatch(/\[8\/8\] 0 passed, 0 failed, 8 error\(s\)/);
    expect(r.code).toBe(3);
    const v = JSON.parse(r.out) as {
      status: string;
      error: string;
      results: { passed: boolean; infra?: string }[];
      matrix: { overall: { met: number; errors: number; cells: number }; cells: { outcome: string }[] };
    };
    expect(v.status).toBe('error');
    expect(v.error).toMatch(/8 case\(s\) could not be judged \(infrastructure\): the sandbox could not run/);
    expect(v.results.every((x) => !x.passed && /no Docker engine answers/.test(x.infra ?? ''))).toBe(true);
    expect(v.matrix.overall).toMatchObject({ met: 0, errors: 8, cells: 8 });
    expect(v.matrix.cells.every((c) => c.outcome === 'error')).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuites name="ecommerce" tests="8" failures="0" errors="8">/);
    expect(xml).toMatch(/<testsuite name="ecommerce @ local:good" tests="8" failures="0" errors="8"/);
    expect(
      xml.match(/<error message="the sandbox could not run the script: [^"]*no Docker engine answers/g),
    ).toHaveLength(8);
    expect(xml).not.toMatch(/<failure /);

    // The text matrix says ERROR, with the cause, under its own heading.
    const t = await cli(['eval', 'ecommerce', '--models', 'local:good'], {
      DOCKER_HOST: `unix://${join(fx.data, 'no-engine.sock')}`,
      TOOLSMITH_BACKEND: 'docker',
    });
    expect(t.code).toBe(3);
    expect(t.out).toMatch(/ERROR 0\/1/);
    expect(t.out).toMatch(/errors \(infrastructure, not failures\):/);
    expect(t.out).not.toMatch(/^failures:/m);
  }, 180_000);
});
