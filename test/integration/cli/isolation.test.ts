/**
 * Isolation levels and engines from the workspace config, end to end through the CLI: `toolsmith exec`
 * in a real process, real containers (runc and gVisor) and bubblewrap; a configured engine or level that
 * is not available is an infra result naming it, never another level.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const tmp = mkdtempSync(join(tmpdir(), 'toolsmith-iso-it-'));
const workspaces: string[] = [];
afterAll(() => workspaces.forEach(removeWorkspace));

/** A copy of the sample workspace with lines added under sections of its config. */
function workspace(add: Record<string, string>, extra = ''): string {
  const ws = tempWorkspace();
  workspaces.push(ws);
  const file = join(ws, '.toolsmith', 'config.toml');
  let text = readFileSync(file, 'utf8');
  for (const [section, lines] of Object.entries(add)) {
    if (!text.includes(`${section}\n`)) throw new Error(`no ${section} in the sample config`);
    text = text.replace(`${section}\n`, `${section}\n${lines}\n`);
  }
  writeFileSync(file, text + extra);
  return ws;
}

async function exec(ws: string, sandbox: string): Promise<{ code: number; result: Record<string, unknown> }> {
  const script = join(tmp, 'a.py');
  writeFileSync(script, 'emit_result(1 + 1)\n');
  const { code, out, err } = await runToolsmith(ws, ['exec', script, '--sandbox', sandbox, '--json'], {
    TOOLSMITH_DATA_DIR: join(tmp, 'data'),
  });
  try {
    return { code, result: JSON.parse(out) as Record<string, unknown> };
  } catch {
    throw new Error(`exec printed no JSON (exit ${code}): ${out}\n${err}`);
  }
}

describe('isolation levels from the config (CLI)', () => {
  it('gvisor and process levels per sandbox; results record the level used', async () => {
    const ws = workspace({
      '[sandboxes.ecommerce]': 'isolation = "gvisor"',
      '[sandboxes.support]': 'isolation = "process"',
    });
    const g = await exec(ws, 'ecommerce');
    expect(g.code).toBe(0);
    expect(g.result).toMatchObject({ success: true, data: 2, isolation: 'gvisor' });
    const p = await exec(ws, 'support');
    expect(p.code).toBe(0);
    expect(p.result).toMatchObject({ success: true, data: 2, isolation: 'bubblewrap' });
  }, 180_000);

  it('an engine that cannot be used is an infra error naming it, not a fall back', async () => {
    const ws = workspace(
      { '[sandboxes.ecommerce]': 'engines = ["far"]' },
      '\n[engines.far]\nhost = "tcp://127.0.0.1:1"\ntls_ca = "/nonexistent/ca.pem"\ntls_cert = "/nonexistent/cert.pem"\ntls_key = "/nonexistent/key.pem"\n',
    );
    const r = await exec(ws, 'ecommerce');
    expect(r.code).toBe(1);
    expect(r.result).toMatchObject({ success: false, exitReason: 'infra', isolation: 'docker' });
    expect(String((r.result['error'] as { message: string }).message)).toMatch(
      /engine 'far': cannot read tls_ca \/nonexistent\/ca\.pem/,
    );
    // The other sandbox of the workspace is not affected.
    const other = await exec(ws, 'support');
    expect(other.result).toMatchObject({ success: true, isolation: 'docker' });
  }, 180_000);
});
