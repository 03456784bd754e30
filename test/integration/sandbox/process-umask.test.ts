/**
 * The process (bubblewrap) level started by a person whose umask is 077 (a common hardened shell): the
 * copy of the workers it makes is still readable by the workers' uids, so Python and JS jobs run. Under
 * that umask every Python worker died at its first import ("No module named 'toolsmith_worker.worker'")
 * and the node binary could not be executed ("prlimit: failed to execute .../bin/node: Permission denied").
 * The same with a private $TMPDIR (libpam-tmpdir's `/tmp/user/0`, mode 0700), which the workers' uids
 * cannot pass: the copy goes to /tmp. Before, the bubblewrap probe failed there.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passableTmpdir } from '../../../src-main/infra/sandbox/process.ts';
import type { SandboxBackend } from '../../../src-main/infra/sandbox/backend.ts';
import { bubblewrapFactory, runPython, testBackend } from '../../support/sandbox.ts';

const TOOLS = `
@tool(grade=(0, 0))
def add(a: int, b: int = 1) -> ToolResponse:
    """Add two numbers."""
    return ToolResponse(success=True, data=a + b)
`;

let b: SandboxBackend;
beforeAll(() => {
  // Only the factory's construction (the copy of the workers) runs under the person's umask.
  const before = process.umask(0o077);
  try {
    b = testBackend(bubblewrapFactory(), { toolsSource: TOOLS });
  } finally {
    process.umask(before);
  }
});
afterAll(async () => {
  await b?.dispose();
});

describe('the process level under umask 077', () => {
  it('runs a Python job', async () => {
    const r = await runPython(b, 'emit_result(add(a=41).data)\n', {
      sandbox: 's',
      tools: ['add'],
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
  });

  it('runs a JS job', async () => {
    const r = await b.execute({
      sandbox: 's',
      language: 'js',
      code: 'emitResult(6 * 7);\n',
      bodyStartLine: 1,
      tools: {},
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
  });
});

describe('the process level with a private $TMPDIR (mode 0700, as libpam-tmpdir makes it)', () => {
  let private0700: string;
  let priv: SandboxBackend | undefined;
  const was = process.env['TMPDIR'];
  beforeAll(() => {
    private0700 = mkdtempSync(join(tmpdir(), 'toolsmith-private-tmp-'));
    mkdirSync(join(private0700, 'user', '0'), { recursive: true, mode: 0o700 });
    process.env['TMPDIR'] = join(private0700, 'user', '0');
    try {
      expect(passableTmpdir()).toBe('/tmp');
      priv = testBackend(bubblewrapFactory(), { toolsSource: TOOLS });
    } finally {
      if (was === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = was;
    }
  });
  afterAll(async () => {
    await priv?.dispose();
    rmSync(private0700, { recursive: true, force: true });
  });

  it('runs a Python job on bubblewrap (its copy of the workers in /tmp)', async () => {
    const r = await runPython(priv!, 'emit_result(add(a=41).data)\n', {
      sandbox: 's',
      tools: ['add'],
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
  });

  it('a $TMPDIR every user may pass is kept', () => {
    expect(passableTmpdir()).toBe(tmpdir());
  });
});

describe('the process level with a $TMPDIR that is a link into a private folder', () => {
  let top: string;
  let linked: SandboxBackend | undefined;
  const was = process.env['TMPDIR'];
  beforeAll(() => {
    // `top/link` -> `top/private/t`: the link's own folders are passable, the private one on the way to
    // its target is not (0700).
    top = mkdtempSync(join(tmpdir(), 'toolsmith-linked-tmp-'));
    chmodSync(top, 0o755);
    mkdirSync(join(top, 'private', 't'), { recursive: true });
    chmodSync(join(top, 'private'), 0o700);
    chmodSync(join(top, 'private', 't'), 0o777);
    symlinkSync(join(top, 'private', 't'), join(top, 'link'));
    process.env['TMPDIR'] = join(top, 'link');
    try {
      linked = testBackend(bubblewrapFactory(), { toolsSource: TOOLS });
    } finally {
      if (was === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = was;
    }
  });
  afterAll(async () => {
    await linked?.dispose();
    rmSync(top, { recursive: true, force: true });
  });

  it('runs a Python job on bubblewrap (its copy of the workers in /tmp)', async () => {
    const r = await runPython(linked!, 'emit_result(add(a=41).data)\n', {
      sandbox: 's',
      tools: ['add'],
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
  });
});

describe('the process level with a $TMPDIR that is a link, in a private folder, to a folder all may pass', () => {
  let top: string;
  let linked: SandboxBackend | undefined;
  const was = process.env['TMPDIR'];
  beforeAll(() => {
    // `top/private/link` -> `top/open`: the target's folders are passable, the link's own (0700) is not;
    // a worker reaches its copy through the target's path only.
    top = mkdtempSync(join(tmpdir(), 'toolsmith-linked-tmp-'));
    chmodSync(top, 0o755);
    mkdirSync(join(top, 'private'), { mode: 0o700 });
    mkdirSync(join(top, 'open'));
    chmodSync(join(top, 'open'), 0o777);
    symlinkSync(join(top, 'open'), join(top, 'private', 'link'));
    process.env['TMPDIR'] = join(top, 'private', 'link');
    try {
      linked = testBackend(bubblewrapFactory(), { toolsSource: TOOLS });
    } finally {
      if (was === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = was;
    }
  });
  afterAll(async () => {
    await linked?.dispose();
    rmSync(top, { recursive: true, force: true });
  });

  it('runs a Python job on bubblewrap (its copy of the workers in the folder the link names)', async () => {
    const r = await runPython(linked!, 'emit_result(add(a=41).data)\n', {
      sandbox: 's',
      tools: ['add'],
      timeoutMs: 60_000,
    });
    expect(r.error).toBeUndefined();
    expect(r).toMatchObject({ success: true, data: 42, isolation: 'bubblewrap' });
  });
});
