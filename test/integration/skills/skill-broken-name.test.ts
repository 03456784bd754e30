/**
 * A new skill in the workbench under the name of a skill file broken by hand (no valid skill: among the
 * list's problems, not its skills). The service refuses the save ("exists; use --force"), and the view
 * told the person to tick "save this as its new version" above, a box it shows only for a saved skill of
 * that name: there was none to tick, after the list was read again as before. Now Save waits before any
 * try, naming that file, and a refusal (the file made meanwhile) names it too. The real service and
 * workspace files; the view's own functions (skills.ts) on what the service answered.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSandboxManager } from '../../../src-main/app/sandbox-factory.ts';
import { dispatch } from '../../../src-main/app/handlers.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import type { Response } from '../../../src-main/contract/api.ts';
import {
  brokenFileAt,
  initialSkills,
  saveRefusal,
  skillsReducer,
  takenBy,
} from '../../../src-renderer/src/views/skills/skills.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

const ws = tempWorkspace();
const svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager, oneShot: true });
afterAll(async () => {
  await svc.close();
  removeWorkspace(ws);
});

describe('a new skill under the name of a file broken by hand', () => {
  it('Save waits naming the file, and a refusal names it; never "tick save this as its new version"', async () => {
    const file = join(ws, 'skills', 'ecommerce', 'user_area.py');
    mkdirSync(join(ws, 'skills', 'ecommerce'), { recursive: true });
    // (a hand edit that left the function misnamed)
    writeFileSync(file, '# version = 3\ndef user_zone(user_id: str) -> str:\n    return user_id\n');
    let s = skillsReducer(initialSkills, { type: 'new', sandbox: 'ecommerce' });
    s = skillsReducer(s, { type: 'edit', field: 'name', value: 'user_area' });
    const draft = s.draft!;

    const list = await dispatch(svc, 'skills.list', {});
    if (!list.ok) throw new Error(list.error.message);
    const skills = list.value as Response<'skills.list'>;
    expect(skills.skills.find((x) => x.name === 'user_area')).toBeUndefined();
    // No saved skill to save over: no box to tick; Save waits, naming the file.
    expect(takenBy(draft, undefined)).toBeUndefined();
    expect(brokenFileAt(draft, skills)?.file).toBe(file);

    const r = await dispatch(svc, 'skills.save', {
      sandbox: 'ecommerce',
      name: 'user_area',
      source: draft.source,
      language: draft.language,
      tests: [],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toMatch(/^skill user_area exists in sandbox ecommerce;/);
    const said = saveRefusal(draft, r.error.message, skills);
    expect(said).not.toContain('tick');
    expect(said).toBe(
      `The file ${file} holds skill user_area of sandbox ecommerce but is not a valid skill (its problem is listed above): fix or remove that file, or choose another name.`,
    );
    // Another name: nothing waits.
    const other = skillsReducer(s, { type: 'edit', field: 'name', value: 'user_region' }).draft!;
    expect(brokenFileAt(other, skills)).toBeUndefined();
  });
});
