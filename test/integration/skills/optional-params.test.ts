/**
 * A JS/TS skill's optional parameter with no default (`title?: string` in TS, JSDoc's `[title]` in JS)
 * is optional, as `title = undefined` is: a test case (or a call) without it is accepted and the function
 * gets `undefined`. Before, it read as required: `skill create` refused the case ("test 1: argument title
 * is missing") and the manual said `required="true"`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolsmith } from '../../support/toolsmith-process.ts';
import { removeWorkspace, tempWorkspace } from '../../support/workspace.ts';

let ws: string;
beforeAll(() => {
  ws = tempWorkspace();
  writeFileSync(
    join(ws, 'greet.ts'),
    `/**
 * Greets a customer.
 * @param name The name.
 * @param title A title, if any.
 * @returns The greeting.
 */
function greet(name: string, title?: string) {
  return title === undefined ? \`Hello \${name}\` : \`Hello \${title} \${name}\`;
}
`,
  );
  writeFileSync(
    join(ws, 'hail.js'),
    `/**
 * Hails a customer.
 * @param {string} name The name.
 * @param {string} [title] A title, if any.
 * @returns The greeting.
 */
function hail(name, title) {
  return title === undefined ? \`Hi \${name}\` : \`Hi \${title} \${name}\`;
}
`,
  );
});
afterAll(() => removeWorkspace(ws));

describe('an optional parameter with no default', () => {
  it('TS `title?: string`: a case without it passes, and the manual says it is optional', async () => {
    const r = await runToolsmith(ws, [
      'skill',
      'create',
      'greet',
      '--sandbox',
      'ecommerce',
      '--file',
      join(ws, 'greet.ts'),
      '--case',
      '{"args": {"name": "Ann"}, "expect": "Hello Ann"}',
      '--case',
      '{"args": {"name": "Ann", "title": "Dr"}, "expect": "Hello Dr Ann"}',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/PASS \{"name":"Ann"\} -> "Hello Ann"/);
    const manual = await runToolsmith(ws, ['tools', '--sandbox', 'ecommerce', '--lang', 'ts']);
    expect(manual.out).toContain('<signature>greet(name: string, title?: string)</signature>');
    expect(manual.out).toMatch(/<parameter name="title" type="string" required="false">/);
    expect(manual.out).toMatch(/<parameter name="name" type="string" required="true">/);
  });

  it('JS JSDoc `[title]`: a case without it passes', async () => {
    const r = await runToolsmith(ws, [
      'skill',
      'create',
      'hail',
      '--sandbox',
      'ecommerce',
      '--file',
      join(ws, 'hail.js'),
      '--case',
      '{"args": {"name": "Ann"}, "expect": "Hi Ann"}',
    ]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const manual = await runToolsmith(ws, ['tools', '--sandbox', 'ecommerce', '--lang', 'js']);
    expect(manual.out).toMatch(/<parameter name="title" type="string" required="false">/);
  });

  it('a script that calls it without the optional argument is valid', async () => {
    writeFileSync(join(ws, 'call.ts'), 'emitResult(await greet("Bo"));\n');
    const r = await runToolsmith(ws, ['validate', join(ws, 'call.ts'), '--sandbox', 'ecommerce']);
    expect(r.out).toMatch(/valid/);
    expect(r.code).toBe(0);
  });
});
