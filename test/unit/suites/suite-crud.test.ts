/**
 * Suites from the workbench: create a suite with its first case, add a run's task as a case (the file's
 * text and comments kept), delete it; through the contract's handlers on a temp workspace.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatch as raw } from '../../../src-main/app/handlers.ts';
import type { Method, Request, Response } from '../../../src-main/contract/api.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { caseIdOf } from '../../../src-main/app/suites.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

/** A contract call: its value, or a rejection with the error's message. */
async function dispatch<M extends Method>(s: ToolsmithService, m: M, req: Request<M>): Promise<Response<M>> {
  const r = await raw(s, m, req);
  if (!r.ok) throw new Error(r.error.message);
  return r.value as Response<M>;
}

// Each test its own workspace and service: each passes alone and in any order.
let ws: string;
let svc: ToolsmithService;
beforeEach(() => {
  ws = tempWorkspace();
  svc = ToolsmithService.open(ws);
});
afterEach(async () => {
  await svc.close();
  removeWorkspace(ws);
});

/** The suite `mine` with its first case, as the workbench creates it. */
const createMine = () =>
  dispatch(svc, 'suites.create', {
    name: 'mine',
    sandbox: 'ecommerce',
    task: 'Name of user u1?',
    description: 'made in the workbench',
  });

describe('suites created, extended and deleted from the workbench', () => {
  it('creates a suite with its first case; a taken name is refused', async () => {
    const r = await createMine();
    expect(r.file).toBe(join(ws, 'suites', 'mine.toml'));
    const read = await dispatch(svc, 'suites.read', { name: 'mine' });
    expect(read.problems).toEqual([]);
    expect(read.text).toContain('sandbox = "ecommerce"');
    expect(read.text).toContain('id = "name-of-user-u1"');
    const list = await dispatch(svc, 'suites.list', {});
    expect(list.find((s) => s.name === 'mine')?.cases).toBe(1);
    await expect(
      dispatch(svc, 'suites.create', { name: 'mine', sandbox: 'ecommerce', task: 'x' }),
    ).rejects.toThrow(/exists already/);
  });

  it("adds a run's task as a case, keeping the file's comments; another sandbox is refused", async () => {
    await createMine();
    const before = readFileSync(join(ws, 'suites', 'mine.toml'), 'utf8');
    const r = await dispatch(svc, 'suites.addCase', {
      name: 'mine',
      task: 'Name of user u1?',
      sandbox: 'ecommerce',
    });
    expect(r.id).toBe('name-of-user-u1-2');
    const after = readFileSync(join(ws, 'suites', 'mine.toml'), 'utf8');
    expect(after.startsWith(before.trimEnd())).toBe(true);
    expect((await dispatch(svc, 'suites.list', {})).find((s) => s.name === 'mine')?.cases).toBe(2);
    await expect(
      dispatch(svc, 'suites.addCase', { name: 'mine', task: 'Open tickets?', sandbox: 'support' }),
    ).rejects.toThrow(/runs in sandbox ecommerce, this task in support/);
    // The sample suite's comments stay when a case is added to it.
    await dispatch(svc, 'suites.addCase', { name: 'support', task: 'How many tickets are open?' });
    const support = readFileSync(join(ws, 'suites', 'support.toml'), 'utf8');
    expect(support).toMatch(/^# Test suite for the support sandbox/);
    expect(support).toContain('id = "how-many-tickets-are-open"');
  });

  it('deletes a suite; an unknown one is not found', async () => {
    await createMine();
    expect(await dispatch(svc, 'suites.delete', { name: 'mine' })).toEqual({ removed: true });
    expect(existsSync(join(ws, 'suites', 'mine.toml'))).toBe(false);
    await expect(dispatch(svc, 'suites.delete', { name: 'mine' })).rejects.toThrow(/no suite mine/);
  });

  it('case ids: the first words of the task, unique', () => {
    expect(caseIdOf('What is the email of user u2?', [])).toBe('what-is-the-email-of');
    expect(caseIdOf('???', [])).toBe('case');
    expect(caseIdOf('a b', ['a-b', 'a-b-2'])).toBe('a-b-3');
  });
});
