/**
 * The desktop build's validation thread: electron.vite.config.ts emits out/main/validate-thread.js (the
 * globalSetup builds it), the bundle finds it next to its main entry, and a ParallelValidator running it
 * validates a long script in parallel with the answer of one-piece validation.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { finishPython, validatePythonPart } from '../../src-main/core/lang/python/validate.ts';
import { ParallelValidator } from '../../src-main/infra/validate/parallel.ts';
import { repoRoot } from '../support/workspace.ts';

describe('bundled validation thread', () => {
  it('is emitted by the build, referenced by the main bundle, and validates like the core', async () => {
    const entry = join(repoRoot, 'out/main/validate-thread.js');
    expect(existsSync(entry), 'out/main/validate-thread.js missing from the electron-vite build').toBe(true);
    const main = readFileSync(join(repoRoot, 'out/main/index.js'), 'utf8');
    expect(main).toContain("'validate-thread.js'".replaceAll("'", '"'));
    const dir = join(repoRoot, 'test/fixtures/corpus/python/benign');
    const scripts = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
    let code = '';
    for (let i = 0; code.length < 40_000; i++) code += `${scripts[i % scripts.length] as string}\n`;
    code += 'x = eval("1")\n';
    const v = new ParallelValidator({ threads: 1, entry: pathToFileURL(entry) });
    try {
      await v.warmUp();
      const opts = { tools: ['get_orders', 'get_user', 'check_inventory', 'get_product'] };
      const result = v.validate(code, 'python', opts);
      expect(v.lastPath).toBe('parallel');
      expect(result).toEqual(finishPython(code, opts, [validatePythonPart(code, opts)]));
      expect(result.violations.map((x) => x.rule)).toContain('forbidden-name');
    } finally {
      await v.close();
    }
  });
});
