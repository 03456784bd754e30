/**
 * `toolsmith validate FILE` refuses a tool call whose arguments cannot bind (`tool-arguments`), naming
 * the argument and the signature, in text and --json, on every path the verb takes: the full path (the
 * service; also with --kit), and the early path answered from the sandboxes snapshot (fresh processes).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { runToolsmith } from '../../support/toolsmith-process.ts';

let ws: string;
let cache: string;
let env: Record<string, string>;
const run = (args: string[]) => runToolsmith(ws, args, env);
const script = (name: string, body: string): string => {
  const file = join(ws, name);
  writeFileSync(file, body);
  return file;
};
const SIG = '(check_inventory(product_id: str, warehouse: str = "New York"))';

beforeAll(() => {
  ws = tempWorkspace('toolsmith-validate-args-');
  cache = mkdtempSync(join(tmpdir(), 'toolsmith-validate-args-home-'));
  env = { XDG_CACHE_HOME: cache, TOOLSMITH_BACKEND: 'process' };
});
afterAll(() => {
  removeWorkspace(ws);
  rmSync(cache, { recursive: true, force: true });
});

describe('validate: tool-call arguments', () => {
  it('text and --json name the argument and the signature; the snapshot path answers alike', async () => {
    const bad = script('bad.py', 'r = check_inventory(warehouse="Berlin", count=2)\nemit_result(r.data)\n');
    // The full path (no snapshot yet), which writes the snapshot the next process answers from.
    const text = await run(['validate', bad, '--sandbox', 'ecommerce']);
    expect(text.code).toBe(1);
    expect(text.out).toBe(
      `${bad}:1:5: tool-arguments: check_inventory() missing required argument 'product_id' ${SIG}\n` +
        `${bad}:1:41: tool-arguments: check_inventory() got an unexpected keyword argument 'count' ${SIG}\n` +
        '2 violations\n',
    );
    // A new script (not the verb cache's answer): the early path, from the snapshot.
    const bad2 = script('bad2.py', 'r = check_inventory("p1", "Berlin", 3)\nemit_result(r.data)\n');
    const json = await run(['validate', bad2, '--sandbox', 'ecommerce', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.out)).toEqual({
      valid: false,
      violations: [
        {
          rule: 'tool-arguments',
          message: `check_inventory() takes 2 positional arguments but 3 were given ${SIG}`,
          line: 1,
          column: 37,
          endLine: 1,
          endColumn: 38,
        },
      ],
    });
    // Without --sandbox: the workspace's default sandbox (ecommerce), literal types too.
    const typed = script('typed.py', 'r = check_inventory(product_id=12)\nemit_result(r.data)\n');
    const t = await run(['validate', typed]);
    expect(t.code).toBe(1);
    expect(t.out).toContain(
      `tool-argument-type: check_inventory() argument 'product_id' must be str, not an int ${SIG}`,
    );
    const good = script('good.py', 'r = check_inventory("p1", warehouse="Berlin")\nemit_result(r.data)\n');
    expect(await run(['validate', good, '--sandbox', 'ecommerce'])).toMatchObject({ code: 0 });
  }, 120_000);

  it("with --kit: the alias and its tool's signature", async () => {
    const file = script('kit.py', 'r = user(id="u1")\nemit_result(r.data)\n');
    const r = await run(['validate', file, '--sandbox', 'ecommerce', '--kit', 'orders']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "tool-arguments: user() missing required argument 'user_id' (user(user_id: str))",
    );
    expect(r.out).toContain(
      "tool-arguments: user() got an unexpected keyword argument 'id' (user(user_id: str))",
    );
  }, 120_000);

  it('TypeScript: the keys of the one object of arguments', async () => {
    const file = script('bad.ts', 'const r = await get_user({ id: "u1" });\nemitResult(r.data);\n');
    const r = await run(['validate', file, '--sandbox', 'ecommerce']);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "tool-arguments: get_user() got an unexpected argument 'id' (get_user({ user_id: string }))",
    );
  }, 120_000);
});
