/**
 * Skills on disk: `skills/<sandbox>/<name>.py|.js|.ts` (TOML front matter in a `# +++` or `// +++`
 * comment block, then the function; one file per name in a sandbox, whatever its language), earlier
 * versions under `.toolsmith/skills-history/<sandbox>/<name>/v<N>.<ext>`, and the last
 * test verdict of each skill in `.toolsmith/skill-tests.json` (keyed by the file's content hash, so a
 * hand edit makes the skill untested again).
 */
import { existsSync, linkSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { errorMessage } from '../../core/errors.ts';
import { skillFromParts, skillFrontMatter, SkillError, skillSizeProblem } from '../../core/skills/skill.ts';
import type { Skill, SkillLanguage } from '../../core/skills/skill.ts';
import {
  SKILL_EXT,
  skillFileTextOf,
  skillLanguageOf,
  shapeOf,
  splitSkillFileOf,
} from '../../core/skills/shape.ts';
import { contentHash } from '../../core/tools/registry.ts';
import {
  atomicWrite,
  folderProblem,
  readWorkspaceText,
  WorkspaceFileError,
  workspaceFolder,
} from './atomic.ts';
import { checkName } from './files.ts';
import { withFileLock } from './file-lock.ts';

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

export function parseSkillText(
  text: string,
  where: { sandbox: string; name: string; file: string },
  language: SkillLanguage = 'python',
): Skill {
  const tooLarge = skillSizeProblem(text.length);
  if (tooLarge) throw new SkillError(`${where.file}: ${tooLarge}`);
  const { front, source } = splitSkillFileOf(text, language, where.file);
  let data: Record<string, unknown>;
  try {
    data = front.trim() ? parseToml(front) : {};
  } catch (e) {
    throw new SkillError(`${where.file}: front matter: ${errorMessage(e).split('\n')[0]}`);
  }
  return skillFromParts(data, source, where, language, (n, src) => shapeOf(n, src, language));
}

export const skillText = (s: Skill): string =>
  skillFileTextOf(stringifyToml(skillFrontMatter(s)), s.source, s.language);

const HISTORY_FILE = /^v(\d+)\.(py|js|ts)$/;

export class SkillFiles {
  readonly dir: string;
  private readonly historyDir: string;
  readonly verdictsFile: string;

  private readonly root: string;

  constructor(root: string) {
    this.root = root;
    this.dir = join(root, 'skills');
    this.historyDir = join(root, '.toolsmith', 'skills-history');
    this.verdictsFile = join(root, '.toolsmith', 'skill-tests.json');
  }

  /**
   * Runs `fn` as the one process of the workspace changing its skills' files (`.toolsmith/skills.lock`):
   * a read of the skill's version or of the verdicts and the write that follows it never interleave
   * with another process's. Before, two processes saving the same skill at once both read its version,
   * and the second's file replaced the first's, which was in no history; two tests of skills at once
   * both read the verdicts, and the second's write dropped the first's verdict.
   */
  locked<T>(what: string, fn: () => T): T {
    return withFileLock(join(this.root, '.toolsmith', 'skills.lock'), what, fn);
  }

  file(sandbox: string, name: string, language: SkillLanguage = 'python'): string {
    return join(
      this.dir,
      checkName('sandbox', sandbox),
      `${checkName('skill', name)}.${SKILL_EXT[language]}`,
    );
  }

  /** Every skill file (of one sandbox, or all), parsed; one that does not parse carries its error. */
  list(sandbox?: string): SkillEntry[] {
    if (!existsSync(this.dir)) return [];
    // A file in place of skills/ (or of a sandbox's folder in it): named as the problem, never Node's
    // "ENOTDIR: not a directory, scandir" answered as an internal error.
    const problem = folderProblem(this.dir);
    if (problem) return [{ sandbox: sandbox ?? '', name: '', file: this.dir, hash: '', error: problem }];
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
      const sbProblem = folderProblem(dir);
      if (sbProblem) {
        out.push({ sandbox: sb, name: '', file: dir, hash: '', error: sbProblem });
        continue;
      }
      const seen = new Set<string>();
      for (const f of readdirSync(dir).sort()) {
        const language = skillLanguageOf(f);
        if (!language) continue;
        const file = join(dir, f);
        const name = f.slice(0, f.lastIndexOf('.'));
        let text: string;
        try {
          text = readWorkspaceText(file);
        } catch (e) {
          // A folder or a named pipe under a skill's name: that entry's problem, the others are listed.
          if (!(e instanceof WorkspaceFileError)) throw e;
          out.push({ sandbox: sb, name, file, hash: '', error: e.message });
          seen.add(name);
          continue;
        }
        const entry: SkillEntry = { sandbox: sb, name, file, hash: contentHash(text) };
        if (seen.has(name))
          entry.error = `${file}: another file of sandbox ${sb} already holds skill ${name} (one file per name)`;
        else
          try {
            entry.skill = parseSkillText(text, { sandbox: sb, name, file }, language);
          } catch (e) {
            entry.error = errorMessage(e);
          }
        seen.add(name);
        out.push(entry);
      }
    }
    return out;
  }

  get(sandbox: string, name: string): SkillEntry | undefined {
    return this.list(sandbox).find((e) => e.name === name);
  }

  /** The skill's file in whichever language it is saved, if any. */
  private existing(sandbox: string, name: string): { file: string; ext: string } | undefined {
    for (const ext of Object.values(SKILL_EXT)) {
      const file = join(this.dir, checkName('sandbox', sandbox), `${checkName('skill', name)}.${ext}`);
      if (existsSync(file)) return { file, ext };
    }
    return undefined;
  }

  /**
   * Writes a skill; the version it replaces (in any language) goes to the history first. Returns the
   * file and its hash.
   */
  write(s: Skill): { file: string; hash: string } {
    return this.locked(`saving skill ${s.name}`, () => this.writeLocked(s));
  }

  private writeLocked(s: Skill): { file: string; hash: string } {
    const file = this.file(s.sandbox, s.name, s.language);
    workspaceFolder(this.root, join(this.dir, s.sandbox), `skill ${s.name}`);
    const before = this.existing(s.sandbox, s.name);
    if (before) this.keep(s.sandbox, s.name, before);
    const text = skillText(s);
    atomicWrite(file, text);
    // The file of another language goes once the new one is written: removed first, a write that then
    // failed (a full disk) left the skill with no file at all, while the error said the file was left
    // as it was.
    if (before && before.file !== file)
      try {
        rmSync(before.file);
      } catch (e) {
        throw new WorkspaceFileError(
          `skill ${s.name} was saved as ${file}, but its file of another language, ${before.file}, could not be removed (${errorMessage(e)}); remove it by hand (one file per name)`,
          before.file,
        );
      }
    return { file, hash: contentHash(text) };
  }

  /** Copies a skill's current file into its history, as the version its front matter names. */
  private keep(sandbox: string, name: string, current: { file: string; ext: string }): void {
    const old = readWorkspaceText(current.file);
    const v =
      /^(?:#|\/\/)\s*version\s*=\s*(\d+)/m.exec(old)?.[1] ??
      String((this.versions(sandbox, name).at(-1) ?? 0) + 1);
    const hist = join(this.historyDir, sandbox, name);
    workspaceFolder(this.root, hist, `the history of skill ${name}`);
    atomicWrite(join(hist, `v${v}.${current.ext}`), old);
  }

  /**
   * The number of the next version saved under `name`: one past the highest of the file's own (read from
   * its front matter, also when the file is not a valid skill) and the history's. A file with a problem,
   * replaced, was saved as v1 again while its text went to the history as v1: two versions of one number.
   */
  nextVersion(sandbox: string, name: string): number {
    return Math.max(this.ownVersion(sandbox, name) ?? 0, this.versions(sandbox, name).at(-1) ?? 0) + 1;
  }

  /**
   * The version the skill's file says it is (its front matter's `version`, read also when the file is not
   * a valid skill: one broken by hand): undefined when there is no file, 0 when it names none.
   */
  ownVersion(sandbox: string, name: string): number | undefined {
    const current = this.existing(sandbox, name);
    if (!current) return undefined;
    return Number(/^(?:#|\/\/)\s*version\s*=\s*(\d+)/m.exec(readWorkspaceText(current.file))?.[1] ?? 0);
  }

  /** The earlier versions kept (their numbers, oldest first). */
  versions(sandbox: string, name: string): number[] {
    const hist = join(this.historyDir, checkName('sandbox', sandbox), checkName('skill', name));
    if (!existsSync(hist)) return [];
    return readdirSync(hist)
      .flatMap((f) => {
        const m = HISTORY_FILE.exec(f);
        return m ? [Number(m[1])] : [];
      })
      .sort((a, b) => a - b);
  }

  /** The skills of a sandbox that were deleted: a history of versions, no file now (names, sorted). */
  deleted(sandbox: string): string[] {
    const dir = join(this.historyDir, checkName('sandbox', sandbox));
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && /^[a-z][a-z0-9_]*$/.test(d.name))
      .map((d) => d.name)
      .filter((name) => !this.existing(sandbox, name) && this.versions(sandbox, name).length > 0)
      .sort();
  }

  /** An earlier version's text (in whichever language it was saved). */
  version(sandbox: string, name: string, v: number): string | undefined {
    const hist = join(this.historyDir, checkName('sandbox', sandbox), checkName('skill', name));
    for (const ext of Object.values(SKILL_EXT)) {
      const f = join(hist, `v${v}.${ext}`);
      if (existsSync(f)) return readWorkspaceText(f);
    }
    return undefined;
  }

  /**
   * Deletes the skill's file; the deleted version goes to the history first (with the earlier ones), so
   * a deleted skill can be looked up and a skill saved later under its name takes the next number.
   */
  delete(sandbox: string, name: string): boolean {
    return this.locked(`deleting skill ${name}`, () => {
      const before = this.existing(sandbox, name);
      if (!before) return false;
      this.keep(sandbox, name, before);
      rmSync(before.file);
      this.setVerdict(sandbox, name, undefined);
      return true;
    });
  }

  /**
   * Every skill's last test verdict. A verdicts file that cannot be read (a folder, a named pipe, no
   * permission) or is not a JSON object of verdicts (cut short, a merge's conflict markers, a hand edit)
   * reads as no verdicts, and `verdictsProblem()` says why: it was read as none, said nowhere, and the
   * next test of any skill wrote a file with that skill's verdict alone over it.
   */
  verdicts(): Record<string, SkillVerdict> {
    return this.readVerdicts().all;
  }

  /**
   * Why the skills' test verdicts cannot be read now (every skill reads as untested), or what became of
   * a verdicts file this process set aside; undefined when neither.
   */
  verdictsProblem(): string | undefined {
    const problem = this.readVerdicts().problem;
    if (problem) return problem;
    // Said while the file kept aside is there: once it is gone (removed, or put back in place once
    // fixed) the person has dealt with it. Before, it was said for as long as the process lived.
    if (this.setAside && !existsSync(this.setAside.file)) this.setAside = undefined;
    return this.setAside?.note;
  }

  /**
   * What this process did with a verdicts file that was not one (said on stderr once, and kept here):
   * the note, and the file it was kept as.
   */
  private setAside: { note: string; file: string } | undefined;

  private readVerdicts(): VerdictsRead {
    let text: string;
    try {
      text = readWorkspaceText(this.verdictsFile);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { all: {} };
      const cause =
        e instanceof WorkspaceFileError
          ? e.message
          : `${this.verdictsFile} cannot be read (${errorMessage(e)})`;
      return {
        all: {},
        unreadable: true,
        problem: `the skills' test verdicts cannot be read: ${cause}; until then every skill reads as untested and none is offered to scripts`,
      };
    }
    let why: string;
    try {
      const v = JSON.parse(text) as unknown;
      const bad = verdictsShapeProblem(v);
      if (!bad) return { all: v as Record<string, SkillVerdict> };
      why = `not a JSON object of skill test verdicts (${bad})`;
    } catch (e) {
      why = `not JSON (${errorMessage(e).split('\n')[0]})`;
    }
    return {
      all: {},
      junk: why,
      problem: `the skills' test verdicts cannot be read: ${this.verdictsFile} is ${why}; until it is fixed or removed every skill reads as untested and none is offered to scripts (the next skill test keeps it aside and starts a new file)`,
    };
  }

  /**
   * Moves the verdicts file aside under a name no other file has (`skill-tests.json.unreadable-<time>`,
   * then `-2`, `-3`... when that is taken): linked there, which fails when the name exists, then removed
   * from its path. Before, it was renamed to the name of its time to the millisecond, and a second file
   * set aside in the same millisecond (by another process, once the first had started a new file that
   * was damaged again) replaced the first one kept aside: it was lost. Returns the name.
   */
  private keepAside(): string {
    const base = `${this.verdictsFile}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (let n = 1; ; n++) {
      const aside = n === 1 ? base : `${base}-${n}`;
      try {
        linkSync(this.verdictsFile, aside);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST' && n < 1000) continue;
        throw e;
      }
      unlinkSync(this.verdictsFile);
      return aside;
    }
  }

  /**
   * Records (or, with undefined, forgets) a skill's verdict. A verdicts file that cannot be read is never
   * written over (it may hold every other skill's verdict): the save is refused naming it. One that is
   * not a file of verdicts is renamed aside (`skill-tests.json.unreadable-<time>`), said, and a new
   * file started. `delete` forgets a verdict only where the file can be read.
   */
  setVerdict(sandbox: string, name: string, verdict: SkillVerdict | undefined): void {
    this.locked(`saving the test verdict of skill ${name}`, () =>
      this.setVerdictLocked(sandbox, name, verdict),
    );
  }

  private setVerdictLocked(sandbox: string, name: string, verdict: SkillVerdict | undefined): void {
    const read = this.readVerdicts();
    if (read.unreadable || read.junk) {
      if (!verdict) return;
      if (read.unreadable)
        throw new WorkspaceFileError(
          `the test verdict of skill ${name} was not saved: ${read.problem}`,
          this.verdictsFile,
        );
      let aside: string;
      try {
        aside = this.keepAside();
      } catch (e) {
        throw new WorkspaceFileError(
          `the test verdict of skill ${name} was not saved: ${this.verdictsFile} is ${read.junk} and could not be kept aside (${errorMessage(e)}); fix or remove it and test again`,
          this.verdictsFile,
        );
      }
      const note = `${this.verdictsFile} was ${read.junk}: it is kept as ${aside}, and a new file of test verdicts was started; the skills tested before read as untested until they are tested again`;
      this.setAside = { note, file: aside };
      process.stderr.write(`toolsmith: ${note}\n`);
    }
    const all = read.all;
    if (verdict) all[`${sandbox}/${name}`] = verdict;
    else delete all[`${sandbox}/${name}`];
    workspaceFolder(this.root, join(this.verdictsFile, '..'), `the verdict of skill ${name}`);
    atomicWrite(this.verdictsFile, `${JSON.stringify(all, null, 2)}\n`);
  }
}

interface VerdictsRead {
  all: Record<string, SkillVerdict>;
  /** Why the verdicts cannot be read, in words with what to do. */
  problem?: string;
  /** The file could not be read (a folder, a named pipe, no permission): never written over. */
  unreadable?: true;
  /** The file was read and is not a JSON object of verdicts: what it is instead. */
  junk?: string;
}

/** Why a parsed verdicts file is not an object of verdicts (the first entry that is not one), if so. */
function verdictsShapeProblem(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return `it holds ${v === null ? 'null' : Array.isArray(v) ? 'a list' : `a ${typeof v}`}`;
  for (const [key, x] of Object.entries(v as Record<string, unknown>)) {
    const e = x as Partial<SkillVerdict> | null;
    if (
      typeof e !== 'object' ||
      e === null ||
      typeof e.hash !== 'string' ||
      typeof e.passed !== 'boolean' ||
      typeof e.at !== 'number' ||
      !Array.isArray(e.failures) ||
      !e.failures.every((f) => typeof f === 'string')
    )
      return `its entry ${JSON.stringify(key)} is not a verdict`;
  }
  return undefined;
}
