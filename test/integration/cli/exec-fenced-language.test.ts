/**
 * `exec` of a file holding an LLM's answer takes its fenced block, as a run does; a block tagged another
 * language than the one it runs as says so. Before, a ```ts block run as JavaScript failed with a bare
 * `syntax error: Unexpected token`, and run as Python (a .md file, no --runtime) with Python's
 * "Statements must be separated by newlines or semicolons": the error named the wrong language, never
 * the block's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { tempWorkspace } from '../../support/workspace.ts';

let ws: string;
const TS_ANSWER = 'Here is the script:\n```ts\nconst r: number = 1 + 1;\nemitResult(r);\n```\n';
beforeAll(() => {
  ws = tempWorkspace();
  writeFileSync(join(ws, 'answer.md'), TS_ANSWER);
  writeFileSync(join(ws, 'answer.js'), TS_ANSWER);
  writeFileSync(join(ws, 'js-answer.md'), '```javascript\nemitResult(getOrders().data.length)\n```\n');
});

describe('exec of a fenced block tagged another language', () => {
  it('a ```ts block run as JavaScript names the block, not only a JavaScript syntax error', async () => {
    const r = await runToolsmith(ws, ['exec', join(ws, 'answer.js'), '--sandbox', 'ecommerce']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /\[syntax\]: the script's code is a ```ts block, but it was run as JavaScript \(syntax error: Unexpected token\): run it as TypeScript, or write it in JavaScript/,
    );
  });

  it('a ```ts block run as Python (no runtime given) names the block, not only a Python syntax error', async () => {
    const r = await runToolsmith(ws, ['exec', join(ws, 'answer.md'), '--sandbox', 'ecommerce']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /\[syntax\]: the script's code is a ```ts block, but it was run as Python \(syntax error: [^)]*\): run it as TypeScript, or write it in Python/,
    );
  });

  it('a ```javascript block that parses as Python gets a wrong-language violation ahead of its others', async () => {
    const r = await runToolsmith(ws, ['exec', join(ws, 'js-answer.md'), '--sandbox', 'ecommerce', '--json']);
    expect(r.code).toBe(1);
    const message = (JSON.parse(r.out) as { error: { message: string } }).error.message;
    expect(message).toMatch(
      /- line 1, column 1 \[wrong-language\]: the script's code is a ```javascript block, but it was run as Python: run it as JavaScript, or write it in Python\n[\s\S]*\[missing-emit\]/,
    );
  });

  it('a ```ts block run as TypeScript keeps its own error words', async () => {
    writeFileSync(join(ws, 'bad.ts'), '```ts\nconst r: number = ;\nemitResult(r);\n```\n');
    const r = await runToolsmith(ws, ['exec', join(ws, 'bad.ts'), '--sandbox', 'ecommerce']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/\[syntax\]: syntax error/);
    expect(r.out).not.toMatch(/was run as/);
  });
});
