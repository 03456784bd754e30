/**
 * The attack corpus (published escapes against AST-restricted Python executors) must each be refused
 * with the expected rule; the benign corpus (realistic LLM scripts) must pass with zero violations.
 */
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validatePython } from '../../../src-main/core/lang/python/validate.ts';

const dir = fileURLToPath(new URL('../../fixtures/corpus/python/', import.meta.url));
const TOOLS = ['get_orders', 'get_user', 'check_inventory', 'get_product'];
const files = (sub: string) =>
  readdirSync(join(dir, sub))
    .filter((f) => f.endsWith('.py'))
    .sort();

describe('Python attack corpus', () => {
  const attacks = files('attack');
  it('has at least 60 attacks', () => expect(attacks.length).toBeGreaterThanOrEqual(60));
  it.each(attacks)('%s is refused with the expected rule', (f) => {
    const code = readFileSync(join(dir, 'attack', f), 'utf8');
    const expected = /^# expect: ([a-z-]+)/.exec(code)?.[1];
    expect(expected).toBeDefined();
    const r = validatePython(code, { tools: TOOLS });
    expect(r.valid).toBe(false);
    expect(r.violations.map((v) => v.rule)).toContain(expected);
    for (const v of r.violations) {
      expect(v.line).toBeGreaterThanOrEqual(1);
      expect(v.column).toBeGreaterThanOrEqual(1);
      expect(v.message.length).toBeGreaterThan(10);
    }
  });
});

describe('Python benign corpus', () => {
  const benign = files('benign');
  it('has at least 30 scripts', () => expect(benign.length).toBeGreaterThanOrEqual(30));
  it.each(benign)('%s passes with zero violations', (f) => {
    const r = validatePython(readFileSync(join(dir, 'benign', f), 'utf8'), { tools: TOOLS });
    expect(r.violations).toEqual([]);
  });
});
