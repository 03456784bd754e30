import { describe, expect, it } from 'vitest';
import { draftOf, kitGrade, kitProblems, kitTools, overMax } from './kit.ts';
import type { Kit, KitDraft } from './kit.ts';

const draft = (d: Partial<KitDraft> = {}): KitDraft => ({
  name: 'lookup',
  sandbox: 'web',
  description: '',
  rows: [{ alias: 'get', tool: 'get_user' }],
  ...d,
});

describe('kitProblems', () => {
  it('accepts a complete draft', () => {
    expect(kitProblems(draft())).toEqual([]);
  });

  it('names every problem of a bad draft', () => {
    expect(
      kitProblems(
        draft({
          name: '-bad',
          sandbox: '',
          rows: [
            { alias: 'a', tool: 'x' },
            { alias: ' a ', tool: '' },
            { alias: '1b', tool: 'y' },
          ],
        }),
      ),
    ).toEqual([
      'The name is letters, digits, _ . - (up to 64).',
      'Pick a sandbox.',
      'Row 2: alias a is used twice.',
      'Row 2: pick a tool.',
      'Row 3: the alias must be an identifier (letters, digits, _).',
    ]);
    expect(kitProblems(draft({ rows: [] }))).toEqual(['Add at least one tool.']);
  });
});

describe('grades', () => {
  it('a kit is as high as its highest tool on each axis', () => {
    expect(kitGrade([])).toEqual({ w: 0, d: 0 });
    expect(kitGrade([{ grade: { w: 2, d: 0 } }, { grade: { w: 1, d: 1 } }])).toEqual({ w: 2, d: 1 });
  });

  it('is over the maximum when either axis is', () => {
    expect(overMax({ w: 2, d: 0 }, undefined)).toBe(false);
    expect(overMax({ w: 1, d: 1 }, { w: 1, d: 1 })).toBe(false);
    expect(overMax({ w: 2, d: 0 }, { w: 1, d: 1 })).toBe(true);
    expect(overMax({ w: 0, d: 2 }, { w: 1, d: 1 })).toBe(true);
  });
});

describe('drafts', () => {
  it('saves rows as alias -> tool with trimmed aliases', () => {
    expect(kitTools(draft({ rows: [{ alias: ' get ', tool: 'get_user' }] }))).toEqual({ get: 'get_user' });
  });

  it('opens a refused kit with a note saying why its tools are missing', () => {
    const k: Kit = { name: 'bad', sandbox: 'web', error: 'grade over max' };
    expect(draftOf(k)).toEqual({
      draft: { name: 'bad', sandbox: 'web', description: '', rows: [] },
      note: 'This kit is refused (grade over max), so its tools cannot be shown: pick them again to replace it.',
    });
  });

  it('opens a kit as its alias rows', () => {
    const k = {
      name: 'k',
      sandbox: 'web',
      kit: {
        description: 'd',
        tools: [{ alias: 'a', tool: { name: 'x' } }],
      },
    } as unknown as Kit;
    expect(draftOf(k)).toEqual({
      draft: { name: 'k', sandbox: 'web', description: 'd', rows: [{ alias: 'a', tool: 'x' }] },
    });
  });
});
