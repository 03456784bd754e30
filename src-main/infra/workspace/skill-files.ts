/**
 * Skills on disk: `skills/<sandbox>/<name>.py` (TOML front matter in a `# +++` comment block, then the
 * function), earlier versions under `.toolsmith/skills-history/<sandbox>/<name>/v<N>.py`, and the last
 * test verdict of each skill in `.toolsmith/skill-tests.json` (keyed by the file's content hash, so a
 * hand edit makes the skill untested again).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { errorMessage } from '../../core/errors.ts';
import {
  skillFileText,
  skillFromParts,
  skillFrontMatter,
  SkillError,
  splitSkillFile,
} from '../../core/skills/skill.ts';
import type { Skill } from '../../core/skills/skill.ts';
import { contentHash } from '../../core/tools/registry.ts';
import { atomicWrite } from './atomic.ts';
import { checkName } from './files.ts';

export interface SkillEntry {
  sandbox: string;
  name: string;
  file: string;
  /** The content hash of the file (what a test verdict is for). */
  hash: string;
  skill?: Skill;
  error?: string;
}

export interface SkillVerdict {
  hash: string;
  passed: boolean;
  at: number;
  /** One line per failed case. */
  failures: string[];
}

export function parseSkillText(text: string, where: { sandbox: string; name: string; file: string }): Skill {
  const { front, source } = splitSkillFile(text, where.file);
  let data: Record<string, unknown>;
  try {
    data = front.trim() ? parseToml(front) : {};
  } catch (e) {
    throw new SkillError(`${where.file}: front matter: ${errorMessage(e).split('\n')[0]}`);
  }
  return skillFromParts(data, source, where);
}

export const skillText = (s: Skill): string => skillFileText(stringifyToml(skillFrontMatter(s)), s.source);

export class SkillFiles {
  readonly dir: string;
  private readonly historyDir: string;
  private readonly verdictsFile: string;

  constructor(root: string) {
    this.dir = join(root, 'skills');
    this.historyDir = join(root, '.toolsmith', 'skills-history');
    this.verdictsFile = join(root, '.toolsmith', 'skill-tests.json');
  }

  file(sandbox: string, name: string): string {
    return join(this.dir, checkName('sandbox', sandbox), `${checkName('skill', name)}.py`);
  }

  /** Every skill file (of one sandbox, or all), parsed; one that does not parse carries its error. */
  list(sandbox?: string): SkillEntry[] {
    if (!existsSync(this.dir)) return [];
    const sandboxes = sandbox
      ? [checkName('sandbox', sandbox)]
      : readdirSync(this.dir, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .map((d) => d.name)
          .sort();
    const out: SkillEntry[] = [];
    for (const sb of sandboxes) {
      const dir = join(this.dir, sb);
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir)
        .filter((x) => x.endsWith('.py'))
        .sort()) {
        const file = join(dir, f);
        const name = f.slice(0, -3);
        const text = readFileSync(file, 'utf8');
        const entry: SkillEntry = { sandbox: sb, name, file, hash: contentHash(text) };
        try {
          entry.skill = parseSkillText(text, { sandbox: sb, name, file });
        } catch (e) {
          entry.error = errorMessage(e);
        }
        out.push(entry);
      }
    }
    return out;
  }

  get(sandbox: string, name: string): SkillEntry | undefined {
    return this.list(sandbox).find((e) => e.name === name);
  }

  /** Writes a skill; the version it replaces goes to the history first. Returns the file and its hash. */
  write(s: Skill): { file: string; hash: string } {
    const file = this.file(s.sandbox, s.name);
    if (existsSync(file)) {
      const old = readFileSync(file, 'utf8');
      const v =
        /^#\s*version\s*=\s*(\d+)/m.exec(old)?.[1] ?? String(this.versions(s.sandbox, s.name).length + 1);
      const hist = join(this.historyDir, s.sandbox, s.name);
      mkdirSync(hist, { recursive: true });
      atomicWrite(join(hist, `v${v}.py`), old);
    }
    mkdirSync(join(this.dir, s.sandbox), { recursive: true });
    const text = skillText(s);
    atomicWrite(file, text);
    return { file, hash: contentHash(text) };
  }

  /** The earlier versions kept (their numbers, oldest first). */
  versions(sandbox: string, name: string): number[] {
    const hist = join(this.historyDir, checkName('sandbox', sandbox), checkName('skill', name));
    if (!existsSync(hist)) return [];
    return readdirSync(hist)
      .flatMap((f) => (/^v(\d+)\.py$/.exec(f) ? [Number(/^v(\d+)/.exec(f)?.[1])] : []))
      .sort((a, b) => a - b);
  }

  /** An earlier version's text. */
  version(sandbox: string, name: string, v: number): string | undefined {
    const f = join(this.historyDir, checkName('sandbox', sandbox), checkName('skill', name), `v${v}.py`);
    return existsSync(f) ? readFileSync(f, 'utf8') : undefined;
  }

  /** Deletes the skill's file (its history stays, so a deleted skill can be looked up). */
  delete(sandbox: string, name: string): boolean {
    const file = this.file(sandbox, name);
    if (!existsSync(file)) return false;
    rmSync(file);
    this.setVerdict(sandbox, name, undefined);
    return true;
  }

  verdicts(): Record<string, SkillVerdict> {
    if (!existsSync(this.verdictsFile)) return {};
    try {
      return JSON.parse(readFileSync(this.verdictsFile, 'utf8')) as Record<string, SkillVerdict>;
    } catch {
      return {};
    }
  }

  setVerdict(sandbox: string, name: string, verdict: SkillVerdict | undefined): void {
    const all = this.verdicts();
    if (verdict) all[`${sandbox}/${name}`] = verdict;
    else delete all[`${sandbox}/${name}`];
    mkdirSync(join(this.verdictsFile, '..'), { recursive: true });
    atomicWrite(this.verdictsFile, `${JSON.stringify(all, null, 2)}\n`);
  }
}
