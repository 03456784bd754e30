import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const eslint = new ESLint({ cwd: root });

async function lint(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: `${root}${file}` });
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint rule', () => {
  it.each([
    ['src-main/core/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"],
    ['src-main/core/x.ts', "import Docker from 'dockerode';\nexport const a = Docker;\n"],
    ['src-main/core/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['src-main/core/x.ts', "import { a } from '../infra/workspace/files.ts';\nexport const b = a;\n"],
    ['src-main/core/x.ts', "import { a } from '../app/service.ts';\nexport const b = a;\n"],
    ['src-main/infra/x.ts', "import { a } from '../app/service.ts';\nexport const b = a;\n"],
    ['src-main/app/x.ts', "import { a } from '../cli/main.ts';\nexport const b = a;\n"],
    ['src-main/contract/x.ts', "import { a } from 'node:path';\nexport const b = a;\n"],
    ['src-renderer/src/x.ts', "import { a } from '../../src-main/app/service.ts';\nexport const b = a;\n"],
    ['src-renderer/src/x.ts', "import { a } from 'node:fs';\nexport const b = a;\n"],
    ['src-preload/x.ts', "import { a } from '../src-main/infra/workspace/files.ts';\nexport const b = a;\n"],
  ])('flags a forbidden import in %s', async (file, code) => {
    expect(await lint(file, code)).not.toEqual([]);
  });

  it.each([
    ['src-main/core/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
    [
      'src-main/infra/x.ts',
      "import { readFileSync } from 'node:fs';\nimport { a } from '../core/tools/model.ts';\nexport const b = [a, readFileSync];\n",
    ],
    ['src-main/app/x.ts', "import { a } from '../infra/workspace/files.ts';\nexport const b = a;\n"],
    [
      'src-renderer/src/x.ts',
      "import type { Method } from '../../src-main/contract/api.ts';\nexport type B = Method;\n",
    ],
  ])('allows a legal import in %s', async (file, code) => {
    expect(await lint(file, code)).toEqual([]);
  });
});
