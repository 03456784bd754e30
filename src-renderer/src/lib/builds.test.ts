import { describe, expect, it } from 'vitest';
import { foldImageProgress, MAX_BUILD_LINES } from './builds.ts';
import type { Builds } from './builds.ts';

const empty: Builds = { imageBuilds: {}, depsBuilds: {} };

describe('foldImageProgress', () => {
  it('appends a runtime build line, and ends the build on done with its error', () => {
    let b = foldImageProgress(empty, { type: 'image_progress', runtime: 'python', line: 'step 1' });
    expect(b.imageBuilds['python']).toEqual({ running: true, lines: ['step 1'] });
    b = foldImageProgress(b, {
      type: 'image_progress',
      runtime: 'python',
      line: 'failed',
      done: true,
      error: 'exit 1',
    });
    expect(b.imageBuilds['python']).toEqual({ running: false, lines: ['step 1', 'failed'], error: 'exit 1' });
    expect(b.depsBuilds).toEqual({});
  });

  it('keeps a build that was started (its first line, its running state)', () => {
    const started: Builds = {
      imageBuilds: { node: { running: true, lines: ['building the node image…'] } },
      depsBuilds: {},
    };
    const b = foldImageProgress(started, { type: 'image_progress', runtime: 'node', line: 'FROM node' });
    expect(b.imageBuilds['node']?.lines).toEqual(['building the node image…', 'FROM node']);
  });

  it("puts a sandbox's dependency build under the sandbox, not the runtime", () => {
    const b = foldImageProgress(empty, {
      type: 'image_progress',
      runtime: 'python',
      line: 'pip install',
      sandbox: 'web',
      done: true,
    });
    expect(b.depsBuilds['web']).toEqual({ running: true, lines: ['pip install'], tags: [] });
    expect(b.imageBuilds).toEqual({});
  });

  it('keeps the last lines of a long log', () => {
    let b = empty;
    for (let i = 0; i < MAX_BUILD_LINES + 5; i++)
      b = foldImageProgress(b, { type: 'image_progress', runtime: 'python', line: `l${i}` });
    const lines = b.imageBuilds['python']?.lines ?? [];
    expect(lines).toHaveLength(MAX_BUILD_LINES);
    expect(lines[0]).toBe('l5');
  });
});
