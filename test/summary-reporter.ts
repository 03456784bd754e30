import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/** One test file's cost: its project, its path, the time it took and when it ran (ms since the epoch). */
export interface FileCost {
  project: string;
  file: string;
  ms: number;
  start: number;
  end: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * What the run cost, one line each: per project (slowest first) its files' summed time and its wall span
 * (first file's start to last file's end, also as times since the first file started), then the
 * `slowest` slowest files.
 */
export function costReport(files: ReadonlyArray<FileCost>, slowest = 15): string[] {
  if (files.length === 0) return [];
  const projects = new Map<string, { files: number; ms: number; start: number; end: number }>();
  for (const f of files) {
    const p = projects.get(f.project);
    if (!p) projects.set(f.project, { files: 1, ms: f.ms, start: f.start, end: f.end });
    else {
      p.files++;
      p.ms += f.ms;
      p.start = Math.min(p.start, f.start);
      p.end = Math.max(p.end, f.end);
    }
  }
  const width = Math.max(...[...projects.keys()].map((k) => k.length));
  const first = Math.min(...files.map((f) => f.start));
  const lines = [
    'Cost per project (files, summed file time, wall span from its first start to its last end):',
  ];
  for (const [name, p] of [...projects].sort((a, b) => b[1].ms - a[1].ms || a[0].localeCompare(b[0])))
    lines.push(
      `  ${name.padEnd(width)}  ${String(p.files).padStart(4)} files  ${seconds(p.ms).padStart(9)} summed  ${seconds(p.end - p.start).padStart(9)} wall  (+${seconds(p.start - first)} to +${seconds(p.end - first)})`,
    );
  const top = [...files].sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file)).slice(0, slowest);
  lines.push(`Slowest ${top.length} files:`);
  for (const f of top) lines.push(`  ${seconds(f.ms).padStart(9)}  ${f.project}  ${f.file}`);
  return lines;
}

/**
 * Prints what each project cost (see `costReport`), then one plain closing line,
 * `Tests: N passed, N failed, N skipped`, that CI logs can read whatever the runner. Files that failed
 * to load count as failed.
 */
export default class SummaryReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly ended = new Map<string, number>();

  onTestModuleQueued(m: TestModule): void {
    this.started.set(m.id, Date.now());
  }

  onTestModuleEnd(m: TestModule): void {
    this.ended.set(m.id, Date.now());
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const costs: FileCost[] = [];
    for (const m of modules) {
      let tests = 0;
      for (const t of m.children.allTests()) {
        tests++;
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (tests === 0 && m.state() === 'failed') failed++;
      const start = this.started.get(m.id);
      const end = this.ended.get(m.id);
      if (start !== undefined && end !== undefined) {
        const d = m.diagnostic();
        // The file's own time, as vitest counts it: environment, setup file, import and tests.
        const ms =
          d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
        costs.push({ project: m.project.name, file: relative(process.cwd(), m.moduleId), ms, start, end });
      }
    }
    failed += errors.length;
    const report = costReport(costs);
    if (report.length > 0) process.stdout.write(`\n${report.join('\n')}\n`);
    process.stdout.write(`\nTests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
