/**
 * The electron-builder configuration (electron-builder.yml), checked without building a package (the
 * Electron binary cannot be downloaded here): loaded and validated by electron-builder's own code
 * against its schema, with the targets we ship and every file it names present.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/workspace.ts';
import { STARTS_PROCESSES_MS } from '../../support/budgets.ts';

interface BuilderConfig {
  appId?: string;
  productName?: string;
  files?: (string | { filter?: string[] })[];
  extraResources?: { from: string; to: string }[];
  linux?: { target?: string[] };
  mac?: { target?: string[] };
  win?: { target?: string[] };
  [k: string]: unknown;
}
interface ConfigModule {
  getConfig(dir: string, path: string | null, extra: unknown): Promise<BuilderConfig>;
  validateConfiguration(c: unknown, log: { isEnabled: boolean; add(): void }): Promise<void>;
}

// electron-builder's own loader and schema validator (app-builder-lib is its library half).
const lib = (await import(
  join(repoRoot, 'node_modules/app-builder-lib/out/util/config/config.js')
)) as ConfigModule;
const quiet = { isEnabled: false, add() {} };

describe('electron-builder configuration', () => {
  it(
    "loads from electron-builder.yml and passes electron-builder's schema validation",
    async () => {
      const config = await lib.getConfig(repoRoot, null, null);
      expect(config.appId).toBe('dev.toolsmith.workbench');
      expect(config.productName).toBe('Toolsmith');
      await expect(lib.validateConfiguration(config, quiet)).resolves.toBeUndefined();
    },
    STARTS_PROCESSES_MS,
  );

  it('a config with a wrong field fails the same validation (the check can fail)', async () => {
    const config = await lib.getConfig(repoRoot, null, null);
    await expect(
      lib.validateConfiguration({ ...config, linux: { ...config.linux, target: 42 }, nsisx: {} }, quiet),
    ).rejects.toThrow(/Invalid configuration object/);
  });

  it('builds deb and AppImage, dmg and nsis', async () => {
    const config = await lib.getConfig(repoRoot, null, null);
    expect(config.linux?.target).toEqual(expect.arrayContaining(['deb', 'AppImage']));
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
  });

  it('every folder and file it names exists, and the app entry is among the packaged files', async () => {
    const config = await lib.getConfig(repoRoot, null, null);
    for (const r of config.extraResources ?? [])
      expect(existsSync(join(repoRoot, r.from)), r.from).toBe(true);
    const patterns = (config.files ?? []).flatMap((f) => (typeof f === 'string' ? [f] : (f.filter ?? [])));
    for (const p of patterns.filter((x) => !/[*!]/.test(x)))
      expect(existsSync(join(repoRoot, p)), p).toBe(true);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe('out/main/index.js');
    expect(patterns).toContain('out/**');
    // electron-vite writes the main bundle where package.json's main points.
    expect(readFileSync(join(repoRoot, 'electron.vite.config.ts'), 'utf8')).toMatch(
      /outDir: resolve\(out, 'main'\)/,
    );
    // The preload and renderer the window loads are built into out/ too.
    expect(readFileSync(join(repoRoot, 'src-main/electron/main.ts'), 'utf8')).toMatch(
      /\.\.\/preload\/index\.cjs/,
    );
  });
});
