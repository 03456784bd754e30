/**
 * `toolsmith sandboxes` answers from a snapshot in the user's cache folder only while nothing it depends on
 * changed (config, sandbox folders, tools.py); any change takes the full path, which validates and rewrites it.
 */
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../../src-main/cli/main.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';

let ws: string;
let cache: string;
const saved = process.env['XDG_CACHE_HOME'];

async function sandboxes(...extra: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    ['--workspace', ws, 'sandboxes', ...extra],
    (t) => (out += t),
    (t) => (err += t),
  );
  return { code, out, err };
}

const snapshotFile = () =>
  join(
    cache,
    'toolsmith',
    readdirSync(join(cache, 'toolsmith')).find((f) => f.startsWith('sandboxes-')) ?? '',
  );
/**
 * Empties the verb cache, which answers `sandboxes` before the snapshot is read (verb-cache.ts): these
 * tests are about the snapshot.
 */
const dropVerbAnswers = () => {
  for (const f of readdirSync(join(cache, 'toolsmith')))
    if (f.startsWith('verbs-')) rmSync(join(cache, 'toolsmith', f));
};

// Each test its own workspace and cache folder: one test's snapshot (or its broken config) is not the
// next one's, so each passes alone and in any order.
beforeEach(() => {
  ws = tempWorkspace('toolsmith-sandboxes-cache-');
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-cache-'));
  process.env['XDG_CACHE_HOME'] = cache;
});

afterEach(() => {
  removeWorkspace(ws);
  rmSync(cache, { recursive: true, force: true });
});

afterAll(() => {
  if (saved === undefined) delete process.env['XDG_CACHE_HOME'];
  else process.env['XDG_CACHE_HOME'] = saved;
});

describe('sandboxes snapshot', () => {
  it(
    'the first call writes a snapshot; the next answers from it with the same output',
    async () => {
      const full = await sandboxes('--json');
      expect(full.code).toBe(0);
      const snap = JSON.parse(readFileSync(snapshotFile(), 'utf8')) as { workspace: string };
      expect(snap.workspace).toBe(ws);
      // Prove the second answer comes from the snapshot: a count only the snapshot holds shows up.
      const doctored = JSON.parse(readFileSync(snapshotFile(), 'utf8')) as {
        sandboxes: { name: string; tools: number }[];
      };
      doctored.sandboxes[0]!.tools = 99;
      writeFileSync(snapshotFile(), JSON.stringify(doctored));
      dropVerbAnswers();
      const cached = await sandboxes('--json');
      expect(JSON.parse(cached.out).sandboxes[0].tools).toBe(99);
      // The real answer again, from the full path, once the snapshot is put back.
      doctored.sandboxes[0]!.tools = JSON.parse(full.out).sandboxes[0].tools;
      writeFileSync(snapshotFile(), JSON.stringify(doctored));
      dropVerbAnswers();
      expect((await sandboxes('--json')).out).toBe(full.out);
    },
    STARTS_PROCESSES_MS,
  );

  it('a changed tools.py misses the snapshot: the new tool is counted', async () => {
    const before = JSON.parse((await sandboxes('--json')).out) as {
      sandboxes: { name: string; tools: number }[];
    };
    const first = before.sandboxes[0]!;
    appendFileSync(
      join(ws, 'sandboxes', first.name, 'tools.py'),
      '\n\n@tool\ndef cache_probe(x: int) -> ToolResponse:\n    """Probe."""\n    return ToolResponse(success=True, data=x)\n',
    );
    const after = JSON.parse((await sandboxes('--json')).out) as {
      sandboxes: { name: string; tools: number }[];
    };
    expect(after.sandboxes[0]!.tools).toBe(first.tools + 1);
  });

  it('a changed config misses the snapshot: an invalid config is reported as before', async () => {
    expect((await sandboxes()).code).toBe(0);
    appendFileSync(
      join(ws, '.toolsmith', 'config.toml'),
      '\n[[providers]]\nid = "bad"\nkind = "nope"\nmodel = "m"\n',
    );
    const r = await sandboxes();
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/providers\.\d+\.kind/);
  });
});

describe('validate from the snapshot', () => {
  let vws: string;
  beforeAll(() => {
    vws = tempWorkspace('toolsmith-validate-cache-');
  });
  afterAll(() => removeWorkspace(vws));

  async function validate(file: string, ...extra: string[]): Promise<{ code: number; out: string }> {
    let out = '';
    const code = await main(
      ['--workspace', vws, 'validate', file, ...extra],
      (t) => (out += t),
      () => {},
    );
    return { code, out };
  }

  it('answers with the names the snapshot holds, and takes the full path again once tools.py changes', async () => {
    const script = join(vws, 'probe.py');
    writeFileSync(script, 'emit_result(snapshot_only_tool())\n');
    // Full path: the tool does not exist, and the snapshot is written.
    const first = await validate(script, '--sandbox', 'ecommerce');
    expect(first.code).toBe(1);
    expect(first.out).toMatch(/snapshot_only_tool\(\) is not defined/);
    const file = readdirSync(join(cache, 'toolsmith'))
      .filter((f) => f.startsWith('sandboxes-'))
      .map((f) => join(cache, 'toolsmith', f))
      .find((f) => readFileSync(f, 'utf8').includes(JSON.stringify(vws)));
    expect(file).toBeDefined();
    // A name only the snapshot holds is accepted: the answer came from the snapshot, not the service.
    const snap = JSON.parse(readFileSync(file!, 'utf8')) as {
      validate: { scriptTools: Record<string, Record<string, string[]>> };
    };
    snap.validate.scriptTools['ecommerce']!['python']!.push('snapshot_only_tool');
    writeFileSync(file!, JSON.stringify(snap));
    // (An edited script: the same bytes would be answered from the verb cache, cli/verb-cache.ts.)
    writeFileSync(script, '# again\nemit_result(snapshot_only_tool())\n');
    expect((await validate(script, '--sandbox', 'ecommerce')).code).toBe(0);
    // Any change to tools.py misses the snapshot: the real tools answer again.
    appendFileSync(join(vws, 'sandboxes', 'ecommerce', 'tools.py'), '\n# changed\n');
    expect((await validate(script, '--sandbox', 'ecommerce')).code).toBe(1);
  });
});
