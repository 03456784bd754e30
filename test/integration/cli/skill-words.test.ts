/**
 * What `skill list` / `skill show` / `skill create` say, read by a person: a JS/TS skill's signature in
 * its own language (as the manual a JS/TS script reads shows it: positional parameters, JS types), and a
 * skill named after one of its sandbox's tools refused in words when it is saved. No container: the
 * skills are hand-written files (listed untested) and the refusal comes before any test runs.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;

const JS_SKILL = `// +++
// version = 1
// +++
/**
 * The stock of a product.
 * @param {string} product_id - the product
 * @param {number} n - how many
 * @param {boolean} flag - a flag
 */
async function stock_of(product_id, n = 2, flag = true) {
  const r = await check_inventory({ product_id });
  return r.data;
}
`;

const TS_SKILL = `// +++
// version = 1
// +++
/** A user's name. */
async function user_name(user_id: string, upper: boolean = false) {
  const r = await get_user({ user_id });
  return upper ? String(r.data.name).toUpperCase() : r.data.name;
}
`;

const PY_SKILL = `# +++
# version = 1
# +++
def email_of(user_id: str, upper: bool = False) -> str:
    """A user's email."""
    return get_user(user_id=user_id).data["email"]
`;

beforeAll(() => {
  ws = tempWorkspace('toolsmith-skill-words-');
  const dir = join(ws, 'skills', 'ecommerce');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'stock_of.js'), JS_SKILL);
  writeFileSync(join(dir, 'user_name.ts'), TS_SKILL);
  writeFileSync(join(dir, 'email_of.py'), PY_SKILL);
});
afterAll(() => removeWorkspace(ws));

/** `toolsmith skill create NAME --sandbox ecommerce --file FILE ...` in the test's workspace. */
const createSkill = (name: string, file: string, ...more: string[]) =>
  runToolsmith(ws, ['skill', 'create', name, '--sandbox', 'ecommerce', '--file', file, ...more]);

describe("a skill's signature in its own language", () => {
  const JS = 'stock_of(product_id: string, n?: number = 2, flag?: boolean = true)';
  const TS = 'user_name(user_id: string, upper?: boolean = false)';
  const PY = 'email_of(user_id: str, upper: bool = False)';

  it('skill list writes a JS/TS skill as a JS script calls it, a Python one as Python does', async () => {
    const r = await runToolsmith(ws, ['skill', 'list', '--sandbox', 'ecommerce']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const line = (name: string) => r.out.split('\n').find((l) => l.startsWith(`ecommerce/${name} `)) ?? '';
    // It read `stock_of(product_id: str, n: float = 2, flag: bool = True)` for a JS skill.
    expect(line('stock_of')).toMatch(
      /\sjs\s.*\s{2}stock_of\(product_id: string, n\?: number = 2, flag\?: boolean = true\)$/,
    );
    expect(line('stock_of').endsWith(JS)).toBe(true);
    expect(line('user_name').endsWith(TS)).toBe(true);
    expect(line('email_of').endsWith(PY)).toBe(true);
  }, 60_000);

  it('skill show (and its --json) says the same', async () => {
    for (const [name, sig] of [
      ['stock_of', JS],
      ['user_name', TS],
      ['email_of', PY],
    ] as const) {
      const r = await runToolsmith(ws, ['skill', 'show', name, '--sandbox', 'ecommerce']);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`\nsignature: ${sig}\n`);
      const j = await runToolsmith(ws, ['skill', 'show', name, '--sandbox', 'ecommerce', '--json']);
      expect((JSON.parse(j.out) as { signature: string }).signature).toBe(sig);
    }
  }, 60_000);
});

describe('a skill named after a tool of its sandbox', () => {
  it('is refused when it is created, saying which tool and to rename the skill (not "do not rebind the tool")', async () => {
    const file = join(ws, 'get_user.js');
    writeFileSync(file, '/** Gets a user. */\nfunction get_user(user_id) {\n  return { id: user_id };\n}\n');
    const r = await createSkill(
      'get_user',
      file,
      '--case',
      '{"args": {"user_id": "u1"}, "expect": {"id": "u1"}}',
    );
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "toolsmith: skill get_user: sandbox ecommerce has a tool named get_user (in the sandbox's tools.py); a skill may not take a tool's name (scripts call both by name, and a skill wrapping the tool would call itself): rename the skill after what it does beyond the tool, e.g. get_user_summary, and save it under that name\n",
    );
    expect(r.err).not.toMatch(/rebind/);
    expect(existsSync(join(ws, 'skills', 'ecommerce', 'get_user.js'))).toBe(false);
    // A Python one too.
    const py = join(ws, 'check_inventory.py');
    writeFileSync(py, 'def check_inventory(product_id: str) -> int:\n    """Stock."""\n    return 1\n');
    const p = await createSkill('check_inventory', py);
    expect(p.code).toBe(2);
    expect(p.err).toMatch(
      /^toolsmith: skill check_inventory: sandbox ecommerce has a tool named check_inventory \(in the sandbox's tools\.py\).*rename the skill/,
    );
    expect(existsSync(join(ws, 'skills', 'ecommerce', 'check_inventory.py'))).toBe(false);
  }, 60_000);
});

describe('an empty skill file', () => {
  it('is refused as not being a function, never told to call emit_result (a skill returns its value)', async () => {
    for (const ext of ['py', 'js']) {
      const file = join(ws, `empty.${ext}`);
      writeFileSync(file, '');
      const r = await createSkill('empty_one', file);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /^toolsmith: skill empty_one: a skill is exactly one function (definition|declaration) /,
      );
      expect(r.err).not.toMatch(/emit_?[rR]esult|empty-script/);
    }
  }, 60_000);
});
