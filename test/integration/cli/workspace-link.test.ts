/**
 * `toolsmith serve --workspace LINK` where LINK is a symbolic link to a workspace, retargeted while
 * serve runs: serve stays on the folder the link led to at start (every file it reads, its run store,
 * its watchers: never half one workspace and half the other) and says so once on stderr, naming both
 * folders and what to do; a link removed is said too. Before, it said nothing, and read its files through
 * the link (the new folder's) while its run store stayed the old folder's.
 */
import {
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';
import { startServe } from '../faults/support/processes.ts';

let a: string;
let b: string;
let dir: string;
let link: string;
let serve: Awaited<ReturnType<typeof startServe>> | undefined;

beforeAll(() => {
  a = tempWorkspace('toolsmith-link-a-');
  b = tempWorkspace('toolsmith-link-b-');
  const config = join(b, '.toolsmith', 'config.toml');
  writeFileSync(config, readFileSync(config, 'utf8').replace(/^name = .*$/m, 'name = "workspace b"'));
  dir = mkdtempSync(join(tmpdir(), 'toolsmith-link-'));
  link = join(dir, 'ws');
  symlinkSync(a, link);
});
afterAll(async () => {
  await serve?.stop();
  removeWorkspace(a);
  removeWorkspace(b);
  rmSync(dir, { recursive: true, force: true });
});

/** Points the link at `target` in one step, as `ln -sfn` does. */
function retarget(target: string): void {
  symlinkSync(target, `${link}.new`);
  renameSync(`${link}.new`, link);
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('serve on a workspace reached through a symbolic link', () => {
  it('stays on the folder it opened, and says once when the link leads elsewhere, then when it is gone', async () => {
    serve = await startServe(link, join(dir, 'data'));
    expect(serve.out()).toContain(`workspace: ${a}\n`);
    const info = () => serve!.call<{ workspace: string; name: string }>('workspace.info', {});
    expect((await info()).workspace).toBe(a);
    retarget(b);
    const moved = `toolsmith serve: the workspace ${link} now leads to ${b}, not to ${a}: this process stays on ${a}, the folder it opened at start`;
    await vi.waitFor(() => expect(serve!.err()).toContain(moved), { timeout: 15_000, interval: 100 });
    expect(serve.err()).toContain(
      `to work in ${b}, restart this server (--workspace ${link} then opens it), or open ${b} from the workbench's Workspace view`,
    );
    // Still on a: its files, its name.
    expect(await info()).toMatchObject({ workspace: a });
    expect((await info()).name).not.toBe('workspace b');
    // Once: a few more checks later, the line is still there once.
    await new Promise((r) => setTimeout(r, 2500));
    expect(count(serve.err(), moved)).toBe(1);
    unlinkSync(link);
    await vi.waitFor(
      () => expect(serve!.err()).toContain(`the workspace ${link} no longer leads to a folder`),
      { timeout: 15_000, interval: 100 },
    );
    expect(count(serve.err(), moved)).toBe(1);
  });
});
