/**
 * Issue 10: a task without the pattern's trailing `?` matches; a miss says why (the nearest template and
 * the first position where the task parts from its pattern), recorded in the run.
 */
import { describe, expect, it } from 'vitest';
import { templateSource } from '../../../src-main/core/templates/source.ts';
import { matchTemplate, nearestTemplate, templateMiss } from '../../../src-main/core/templates/template.ts';
import type { Template } from '../../../src-main/core/templates/template.ts';

const t = (name: string, pattern: string, slots: Template['slots'] = {}): Template => ({
  name,
  pattern,
  slots,
  sandbox: 'ecommerce',
  language: 'python',
  body: 'emit_result(1)\n',
  examples: [],
});
const userName = t('user-name', 'What is the name of user {user_id}?', { user_id: 'str' });
const stock = t('stock', 'How many {product} units are in {city}?', { product: 'str', city: 'str' });

describe('trailing punctuation', () => {
  it("a task without the pattern's trailing ? matches, and one with it, or with . or !", () => {
    for (const task of [
      'What is the name of user u1',
      'What is the name of user u1?',
      'what is the name of user u1 ?',
      'What is the name of user u1.',
      'What is the name of user u1!',
    ])
      expect(matchTemplate(userName, task), task).toEqual({ user_id: 'u1' });
  });

  it('a pattern without punctuation matches a task that ends with some', () => {
    expect(matchTemplate(t('n', 'name of user {id}', { id: 'str' }), 'name of user u2?')).toEqual({
      id: 'u2',
    });
  });
});

describe('why no template matched', () => {
  it('names the first position where the task parts from the pattern', () => {
    const m = templateMiss(userName, 'What is the email of user u1?');
    expect(m).toMatchObject({ template: 'user-name', position: 12, expected: 'name of user {user_id}' });
    expect(m.found).toBe('email of user u1');
  });

  it('continues past a slot: the difference after it is found', () => {
    const m = templateMiss(stock, 'How many p1 units are at Paris');
    expect(m.position).toBe('How many p1 units are '.length);
    expect(m.expected).toBe('in {city}');
    expect(m.found).toBe('at Paris');
  });

  it('a task that goes on past the pattern', () => {
    const m = templateMiss(t('all', 'list orders'), 'list orders of user u1');
    expect(m.position).toBe('list orders'.length);
    expect(m.expected).toBe('(the end of the pattern)');
  });

  it('the nearest template is the one matched furthest', () => {
    expect(nearestTemplate([stock, userName], 'What is the name of customer u1')?.template).toBe('user-name');
  });

  it('the templates tier explains its miss; no template, or only another sandbox, says so', () => {
    const ctx = { sandbox: 'ecommerce', language: 'python' as const, tools: [] };
    const src = templateSource([userName, stock]);
    expect(src.propose('What is the email of user u1', ctx)).toBeUndefined();
    expect(src.explainMiss?.('What is the email of user u1', ctx)).toMatchObject({
      template: 'user-name',
      position: 12,
      reason: expect.stringMatching(/^nearest template user-name .* differs at character 13 of the task/),
    });
    // A task that says more than a str slot takes is told why it was not served.
    const more = src.explainMiss?.('What is the name of user u1 and u2', ctx);
    expect(more?.reason).toMatch(
      /expected "\{user_id\}", found "u1 and u2" \(\{user_id\} takes one word or a quoted text, and the task says more\)$/,
    );
    expect(src.explainMiss?.('What is the name of user', ctx)?.reason).not.toMatch(/takes one word/);
    expect(templateSource([]).explainMiss?.('x', ctx)).toEqual({ reason: 'no template is saved' });
    expect(
      templateSource([{ ...userName, sandbox: 'support' }]).explainMiss?.('What is the name of user u1', ctx)
        ?.reason,
    ).toMatch(
      /no template for sandbox ecommerce, python; template user-name matches the task but is for sandbox support/,
    );
  });
});
