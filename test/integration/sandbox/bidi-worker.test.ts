/**
 * The `bidi-control` rule ("Trojan Source", src-main/core/lang/bidi.ts) is the workers' too: a script
 * sent with the host's validation off (`exec --no-validate`, `validate: false`) holding a bidirectional
 * control character is refused by the worker itself, before any of it runs, in every runtime (Python's
 * checks.py; node, bun and deno's worker.mjs), under the same rule name with its line, column and code
 * point. Before, the workers re-checked other rules but not this one, and such a script ran.
 */
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxManager, imagePaths } from '../../../src-main/app/sandbox-factory.ts';
import { ToolsmithService } from '../../../src-main/app/service.ts';
import { buildImage } from '../../../src-main/infra/sandbox/images.ts';
import { bunDenoWorkspace, removeWorkspace } from '../../support/workspace.ts';

let ws: string;
let svc: ToolsmithService;

beforeAll(async () => {
  const docker = new Docker();
  for (const rt of ['bun', 'deno'] as const) await buildImage(docker, rt, imagePaths(), () => {});
  ws = bunDenoWorkspace('toolsmith-bidi-worker-');
  svc = ToolsmithService.open(ws, { sandboxFactory: createSandboxManager });
}, 600_000);
afterAll(async () => {
  await svc?.close();
  if (ws) removeWorkspace(ws);
});

const RLO = '\u202e';
const LRI = '\u2066';
const CASES = [
  {
    runtime: 'python',
    language: 'python',
    // an astral character before the second one: the column counts UTF-16 code units, as the host's
    body: `x = 1\ny = "ab${RLO}cd"\n# \u{1F600}${LRI} note\nemit_result(y)\n`,
  },
  ...(['node', 'bun', 'deno'] as const).map((runtime) => ({
    runtime,
    language: 'js' as const,
    body: `const x = 1;\nconst y = "ab${RLO}cd";\n// \u{1F600}${LRI} note\nemitResult(y);\n`,
  })),
] as const;

describe('the workers refuse bidirectional control characters themselves (host validation off)', () => {
  for (const c of CASES) {
    it(`${c.runtime}: refused as bidi-control, by line, column and code point; nothing runs`, async () => {
      const r = await svc.execution.executeScript({
        sandbox: 'ecommerce',
        runtime: c.runtime,
        language: c.language,
        body: c.body,
        validate: false,
        timeoutMs: 60_000,
      });
      expect(r, JSON.stringify(r.error)).toMatchObject({
        success: false,
        exitReason: 'rejected',
        runtime: c.runtime,
        error: { type: 'ValidationError' },
      });
      expect(r.data).toBeUndefined();
      const [column, column3] = c.language === 'python' ? [8, 5] : [14, 6];
      const message = r.error?.message ?? '';
      expect(message).toContain(
        `line 2, column ${column}: bidi-control: U+202E (RIGHT-TO-LEFT OVERRIDE), a bidirectional control character, is refused anywhere in a script (if a string really needs it, write it as the escape "\\u202e" inside the string)`,
      );
      expect(message).toContain(`line 3, column ${column3}: bidi-control: U+2066 (LEFT-TO-RIGHT ISOLATE)`);
    }, 300_000);
  }
});
