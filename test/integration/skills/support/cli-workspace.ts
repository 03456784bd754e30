/**
 * A workspace made by `toolsmith init` in a temporary folder of its own, with the CLI run as a process
 * against it (its own TOOLSMITH_HOME and data folder): the skills and telemetry tests that go through
 * the CLI.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cliArgv } from '../../../support/toolsmith-process.ts';
import { cliProcess } from '../../faults/support/processes.ts';

/** A Python skill over the sample workspace's `get_user` (its tier for u1 is "gold"). */
export const USER_TIER_PY = `def user_tier(user_id: str) -> str:
    """A customer's tier.

    Args:
        user_id: The customer's id (e.g. "u1").

    Returns:
        The tier.
    """
    return get_user(user_id=user_id).data["tier"]
`;

export interface CliWorkspace {
  base: string;
  ws: string;
  env: Record<string, string>;
  /** What `toolsmith init` printed on stderr. */
  initErr: string;
  /** Runs the CLI in the workspace: its exit code and output. */
  cli(args: string[]): ReturnType<typeof cliProcess>['done'];
  /** Writes a file beside the workspace and returns its path. */
  file(name: string, text: string): string;
  remove(): void;
}

export function initCliWorkspace(prefix: string): CliWorkspace {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const ws = join(base, 'ws');
  const env = { TOOLSMITH_HOME: join(base, 'home'), TOOLSMITH_DATA_DIR: join(base, 'data') };
  const init = spawnSync(...cliArgv(['init', ws]), {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  expect(init.status, init.stderr).toBe(0);
  return {
    base,
    ws,
    env,
    initErr: init.stderr,
    cli: (args) => cliProcess(ws, env.TOOLSMITH_DATA_DIR, args, env).done,
    file: (name, text) => {
      const f = join(base, name);
      writeFileSync(f, text);
      return f;
    },
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}
