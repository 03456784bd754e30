/**
 * Two processes editing one skill: the workbench (the service's `skills.save`, as the Skills view sends
 * it) holds a draft of v1, kept across reloads, while the CLI saves v2. The view's Save sends the version
 * its edit started from and is refused, naming the version now saved; v2 stays. It used to save the draft
 * as v3 with `force`, silently putting v1's text back over the CLI's change.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { Response } from '../../../src-main/contract/api.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { cliProcess } from '../faults/support/processes.ts';

const ws = tempWorkspace();
const data = mkdtempSync(join(tmpdir(), 'toolsmith-data-'));
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
  rmSync(data, { recursive: true, force: true });
});

const tier = (body: string) => `def user_tier(user_id: str) -> str:
    """A customer's tier.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The tier.
    """
    ${body}
`;
const V1 = tier('return get_user(user_id=user_id).data["tier"]');
const V2 = tier('return get_user(user_id=user_id).data["tier"].upper()');
const DRAFT = tier('return str(get_user(user_id=user_id).data["tier"])');

const call = async <T>(method: string, req: unknown): Promise<T> => {
  const r = await dispatch(svc, method, req);
  if (!r.ok) throw new Error(r.error.message);
  return r.value as T;
};

describe('a skill saved by the CLI while the workbench edits it', () => {
  it("the workbench's save of its older draft is refused naming the version now saved; the CLI's stays", async () => {
    const made = await call<Response<'skills.save'>>('skills.save', {
      sandbox: 'ecommerce',
      name: 'user_tier',
      source: V1,
      tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 'gold' }] }],
    });
    expect(made.skill.version).toBe(1);

    const file = join(ws, 'v2.py');
    writeFileSync(file, V2);
    const cli = await cliProcess(ws, data, [
      'skill',
      'create',
      'user_tier',
      '--sandbox',
      'ecommerce',
      '--file',
      file,
      '--case',
      JSON.stringify({ args: { user_id: 'u1' }, expect: 'GOLD' }),
      '--force',
    ]).done;
    expect(cli.code, cli.out + cli.err).toBe(0);
    expect(cli.out).toContain('saved skill ecommerce/user_tier v2');

    // The view's Save of its draft of v1 (edit mode: force, and the version it opened).
    const stale = await dispatch(svc, 'skills.save', {
      sandbox: 'ecommerce',
      name: 'user_tier',
      source: DRAFT,
      force: true,
      version: 1,
    });
    expect(stale.ok).toBe(false);
    if (!stale.ok)
      expect(stale.error.message).toBe(
        'skill user_tier of sandbox ecommerce is at v2 now: it was saved again since you opened v1; your edit was not saved, so as not to replace that version: open the skill again and make your edit there (copy your text first)',
      );
    const now = await call<Response<'skills.get'>>('skills.get', { sandbox: 'ecommerce', name: 'user_tier' });
    expect(now.version).toBe(2);
    expect(now.source).toBe(V2);
    expect(readFileSync(now.file, 'utf8')).toContain('.upper()');

    // Opened again (v2), the same edit saves as v3.
    const saved = await call<Response<'skills.save'>>('skills.save', {
      sandbox: 'ecommerce',
      name: 'user_tier',
      source: DRAFT,
      force: true,
      version: 2,
    });
    expect(saved.skill.version).toBe(3);

    // Deleted by the CLI meanwhile: the save says so rather than bringing it back.
    const del = await cliProcess(ws, data, ['skill', 'delete', 'user_tier', '--sandbox', 'ecommerce']).done;
    expect(del.code, del.out + del.err).toBe(0);
    const gone = await dispatch(svc, 'skills.save', {
      sandbox: 'ecommerce',
      name: 'user_tier',
      source: DRAFT,
      force: true,
      version: 3,
    });
    expect(gone.ok).toBe(false);
    if (!gone.ok)
      expect(gone.error.message).toMatch(
        /^skill user_tier of sandbox ecommerce was deleted since you opened v3 \(its versions are kept: toolsmith skill show user_tier --sandbox ecommerce --revision 3\)/,
      );
  }, 300_000);

  it('a file broken by hand since the edit opened it is not "deleted": at that version the edit saves over it, else it names its version', async () => {
    const source = V1.replace('def user_tier', 'def hand_tier');
    const made = await call<Response<'skills.save'>>('skills.save', {
      sandbox: 'ecommerce',
      name: 'hand_tier',
      source,
    });
    expect(made.skill.version).toBe(1);
    const file = join(ws, 'skills/ecommerce/hand_tier.py');
    const helper = '\n\ndef helper(x: int) -> int:\n    return x\n';
    // Edited by hand into something that is not a skill (two functions), its front matter's version kept.
    const broken = readFileSync(file, 'utf8') + helper;
    writeFileSync(file, broken);
    expect(
      (await call<Response<'skills.list'>>('skills.list', { sandbox: 'ecommerce' })).problems.map(
        (p) => p.file,
      ),
    ).toContain(file);
    // The view's Save of its edit of v1 (as a fix of the file, say). Before: "skill hand_tier of sandbox
    // ecommerce was deleted since you opened v1 (its versions are kept: ... --revision 1)", of a file that
    // is there, and whose v1 was in no history.
    const fixed = await dispatch(svc, 'skills.save', {
      sandbox: 'ecommerce',
      name: 'hand_tier',
      source: source.replace('["tier"]', '["tier"].lower()'),
      force: true,
      version: 1,
    });
    expect(fixed.ok, fixed.ok ? '' : fixed.error.message).toBe(true);
    if (fixed.ok)
      expect((fixed.value as Response<'skills.save'>).skill).toMatchObject({ version: 2, versions: [1] });
    // The hand edit is kept, as the version it said it was.
    expect(readFileSync(join(ws, '.toolsmith/skills-history/ecommerce/hand_tier/v1.py'), 'utf8')).toBe(
      broken,
    );

    // Broken by hand again, now saying version 7: the edit of v2 is refused naming v7, not a deletion.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/version = 2/, 'version = 7') + helper);
    const stale = await dispatch(svc, 'skills.save', {
      sandbox: 'ecommerce',
      name: 'hand_tier',
      source,
      force: true,
      version: 2,
    });
    expect(stale.ok).toBe(false);
    if (!stale.ok)
      expect(stale.error.message).toMatch(
        /^skill hand_tier of sandbox ecommerce is at v7 now: it was saved again since you opened v2; your edit was not saved/,
      );
    // Its front matter gone too: said as a change, not a deletion.
    writeFileSync(file, `${source}${helper}`);
    const bare = await dispatch(svc, 'skills.save', {
      sandbox: 'ecommerce',
      name: 'hand_tier',
      source,
      force: true,
      version: 2,
    });
    expect(bare.ok).toBe(false);
    if (!bare.ok)
      expect(bare.error.message).toMatch(
        /^skill hand_tier of sandbox ecommerce was changed since you opened v2: its file names no version now; your edit was not saved/,
      );
  }, 300_000);

  it('a skill file with a problem, replaced, takes the number after its own: never a second v1', async () => {
    // Edited by hand into something that is not a skill (two functions), at version 3.
    const broken = `# +++\n# version = 3\n# +++\n${V1}\n\ndef helper(x: int) -> int:\n    return x\n`;
    mkdirSync(join(ws, 'skills/ecommerce'), { recursive: true });
    writeFileSync(join(ws, 'skills/ecommerce/broken_tier.py'), broken);
    const listed = await call<Response<'skills.list'>>('skills.list', { sandbox: 'ecommerce' });
    expect(listed.problems.map((p) => p.file)).toContain(join(ws, 'skills/ecommerce/broken_tier.py'));
    const saved = await call<Response<'skills.save'>>('skills.save', {
      sandbox: 'ecommerce',
      name: 'broken_tier',
      source: V1.replace('def user_tier', 'def broken_tier'),
      tests: [{ args: { user_id: 'u1' }, assert: [{ type: 'equals', value: 'gold' }] }],
      force: true,
    });
    expect(saved.skill.version).toBe(4);
    expect(saved.skill.versions).toEqual([3]);
    expect(readFileSync(join(ws, '.toolsmith/skills-history/ecommerce/broken_tier/v3.py'), 'utf8')).toBe(
      broken,
    );
  }, 300_000);
});
