/**
 * The CLI loads only the module of the verb it runs: every verb still has its --help, the top-level
 * help still lists every verb, and `init` creates workspaces (sample copy or --empty).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../../../src-main/cli/context.ts';
import { buildProgram, verbOf } from '../../../src-main/cli/main.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';
import { cli } from '../../support/cli.ts';

const VERBS = [
  'validate',
  'prompt',
  'tools',
  'kit',
  'sandboxes',
  'serve',
  'run',
  'runs',
  'template',
  'mcp',
  'exec',
  'pool',
  'image',
  'tool',
  'init',
];

describe('lazy verbs', () => {
  it('finds the verb after the global --workspace option', () => {
    expect(verbOf(['--workspace', 'x', 'sandboxes'])).toBe('sandboxes');
    expect(verbOf(['-w', 'x', 'runs', 'list'])).toBe('runs');
    expect(verbOf(['--help'])).toBeUndefined();
  });

  it('the top-level help lists every verb', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const v of VERBS) expect(r.out).toMatch(new RegExp(`\\n  ${v}\\b`));
  });

  it(
    "the top-level help, printed from the summary table without loading verbs, is the real verbs' help",
    async () => {
      const ctx = createContext(
        () => {},
        () => {},
      );
      const light = await buildProgram(ctx, ['--help']);
      const full = await buildProgram(ctx, ['--help'], true);
      expect(light.helpInformation()).toBe(full.helpInformation());
    },
    STARTS_PROCESSES_MS,
  );

  it.each(VERBS)('`%s --help` works with only that verb loaded', async (verb) => {
    const r = await cli(verb, '--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: toolsmith ${verb}`);
  });

  it('an unknown verb is still a usage error', async () => {
    const r = await cli('frobnicate');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown command 'frobnicate'/);
  });
});

// Loading the CLI's service modules (the validators' parsers) on first use: seconds on a loaded machine.
describe('toolsmith init', { timeout: STARTS_PROCESSES_MS }, () => {
  // Each test its own folder and Toolsmith home (its recent list): each passes alone and in any order.
  let base: string;
  const saved = process.env['TOOLSMITH_HOME'];
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'toolsmith-init-'));
    process.env['TOOLSMITH_HOME'] = join(base, 'home');
  });
  afterAll(() => {
    if (saved === undefined) delete process.env['TOOLSMITH_HOME'];
    else process.env['TOOLSMITH_HOME'] = saved;
  });

  it('copies the sample workspace into a new folder, named after it', async () => {
    const dir = join(base, 'shop-tools');
    const r = await cli('init', dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`created workspace ${dir} (a copy of the sample workspace)`);
    expect(readFileSync(join(dir, '.toolsmith', 'config.toml'), 'utf8')).toContain('name = "shop-tools"');
    expect(existsSync(join(dir, 'sandboxes', 'ecommerce', 'tools.py'))).toBe(true);
    expect(existsSync(join(dir, '.toolsmith', 'runs.db'))).toBe(false);
    const list = await cli('--workspace', dir, 'sandboxes', '--json');
    expect(JSON.parse(list.out)).toMatchObject({ workspace: dir });
    expect(JSON.parse(readFileSync(join(base, 'home', 'recent-workspaces.json'), 'utf8'))).toEqual([dir]);
  });

  it('--empty makes a skeleton: config, sandboxes/, kits/, templates/', async () => {
    const dir = join(base, 'blank');
    const r = await cli('init', dir, '--empty', '--name', 'Blank one', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ workspace: dir, kind: 'empty' });
    for (const d of ['sandboxes', 'kits', 'templates']) expect(existsSync(join(dir, d))).toBe(true);
    expect(readFileSync(join(dir, '.toolsmith', 'config.toml'), 'utf8')).toContain('name = "Blank one"');
    const list = await cli('--workspace', dir, 'sandboxes', '--json');
    expect(JSON.parse(list.out)).toEqual({ workspace: dir, sandboxes: [] });
  });

  it('refuses an existing workspace and a folder that holds other files (exit 2, one line)', async () => {
    expect((await cli('init', join(base, 'blank'), '--empty')).code).toBe(0);
    const again = await cli('init', join(base, 'blank'));
    expect(again.code).toBe(2);
    expect(again.err).toMatch(/is already a workspace/);
    const busy = join(base, 'busy');
    await cli('init', busy, '--empty');
    writeFileSync(join(base, 'file.txt'), 'x');
    const notEmpty = await cli('init', base);
    expect(notEmpty.code).toBe(2);
    expect(notEmpty.err).toMatch(/is not empty/);
  });
});
