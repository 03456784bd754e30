import { describe, expect, it } from 'vitest';
import { costReport, type FileCost } from '../../summary-reporter.ts';

const file = (project: string, name: string, ms: number, start: number, end: number): FileCost => ({
  project,
  file: name,
  ms,
  start,
  end,
});

describe('costReport', () => {
  it('sums each project, spans its first start to its last end, and lists the slowest files first', () => {
    const lines = costReport([
      file('unit', 'test/unit/a.test.ts', 1_000, 0, 1_000),
      file('integration', 'test/integration/b.test.ts', 30_000, 500, 30_500),
      file('integration', 'test/integration/c.test.ts', 20_000, 1_000, 41_000),
      file('unit', 'test/unit/d.test.ts', 2_500, 1_000, 3_500),
    ]);
    expect(lines).toEqual([
      'Cost per project (files, summed file time, wall span from its first start to its last end):',
      '  integration     2 files     50.0 s summed     40.5 s wall  (+0.5 s to +41.0 s)',
      '  unit            2 files      3.5 s summed      3.5 s wall  (+0.0 s to +3.5 s)',
      'Slowest 4 files:',
      '     30.0 s  integration  test/integration/b.test.ts',
      '     20.0 s  integration  test/integration/c.test.ts',
      '      2.5 s  unit  test/unit/d.test.ts',
      '      1.0 s  unit  test/unit/a.test.ts',
    ]);
  });

  it('lists only the given number of slowest files', () => {
    const files = Array.from({ length: 20 }, (_, i) => file('unit', `f${i}.test.ts`, i * 100, 0, 100));
    const lines = costReport(files, 15);
    expect(lines[2]).toBe('Slowest 15 files:');
    expect(lines.slice(3)).toHaveLength(15);
    expect(lines[3]).toBe('      1.9 s  unit  f19.test.ts');
    expect(lines.at(-1)).toBe('      0.5 s  unit  f5.test.ts');
  });

  it('prints nothing when no file ran', () => {
    expect(costReport([])).toEqual([]);
  });
});
