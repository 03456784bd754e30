/**
 * Turns raw LLM output into the script that is validated and run: strips fences and prose, then adds a
 * preamble comment (tools and helpers available) and a postamble comment. Both are comments only, so
 * validating or running the assembled script is equivalent to the body, except for the skills the body
 * names: their functions are defined in the preamble, ahead of the body (and the worker re-checks them
 * with it). `bodyStartLine` maps lines of the assembled script back to the body the LLM wrote.
 */
import type { ScriptLanguage } from '../lang/violation.ts';
import { skillsPrelude, skillsUsed } from '../skills/offered.ts';
import type { OfferedSkill } from '../skills/offered.ts';

export interface AssembledScript {
  language: ScriptLanguage;
  /** The code as the LLM meant it, fences and prose removed. */
  body: string;
  /** Preamble + body + postamble: what is validated and sent to the sandbox. */
  code: string;
  /** 1-based line of `code` where the body starts. */
  bodyStartLine: number;
}

const FENCE = /(^|\n)[ \t]*(```|~~~)[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n([\s\S]*?)(?:\n[ \t]*\2[ \t]*(?=\n|$)|$)/g;
/** The fence tags a language's code block may carry (`` for an untagged block). */
export const LANGUAGE_TAGS: Record<ScriptLanguage, readonly string[]> = {
  python: ['python', 'py', 'python3', ''],
  js: ['javascript', 'js', 'node', 'mjs', ''],
  ts: ['typescript', 'ts', ''],
};

/** The tags of an answer's fenced blocks, lowercased, in order (`` for an untagged block). */
export function fenceTags(text: string): string[] {
  return [...text.replace(/\r\n/g, '\n').matchAll(FENCE)].map((m) => (m[3] ?? '').toLowerCase());
}

/** The script language a fence tag names (`ts` -> ts, `py` -> python), or undefined (`bash`, untagged). */
export function languageOfTag(tag: string): ScriptLanguage | undefined {
  if (tag === '') return undefined;
  return (Object.keys(LANGUAGE_TAGS) as ScriptLanguage[]).find((l) => LANGUAGE_TAGS[l].includes(tag));
}

/**
 * The tag of a text's code when its fenced blocks are all tagged a language other than `language` (a
 * ```ts block given to a JavaScript script), else undefined: an untagged block, or one of the language's
 * own tags, is the language's code. Which block was taken is stripFences's choice (the longest).
 */
export function otherLanguageFence(text: string, language: ScriptLanguage): string | undefined {
  const tags = fenceTags(text);
  if (tags.some((t) => LANGUAGE_TAGS[language].includes(t))) return undefined;
  return tags.find((t) => t !== '');
}

/**
 * Extracts the code from an LLM answer: the fenced block in the wanted language (the longest when
 * several), else any fenced block, else the text without leading prose lines such as "Here is the script:".
 */
export function stripFences(text: string, language: ScriptLanguage = 'python'): string {
  const blocks: { tag: string; code: string }[] = [];
  for (const m of text.replace(/\r\n/g, '\n').matchAll(FENCE))
    blocks.push({ tag: (m[3] ?? '').toLowerCase(), code: m[4] ?? '' });
  const wanted = blocks.filter((b) => LANGUAGE_TAGS[language].includes(b.tag));
  const pick = (wanted.length ? wanted : blocks).sort((a, b) => b.code.length - a.code.length)[0];
  if (pick) return pick.code.replace(/\s+$/, '') + '\n';
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const prose =
    /^\s*(here('|’)s|here is|below is|the following|sure|certainly|this script|i will|i'll|okay|ok,)\b.*[:.!]?\s*$/i;
  while (lines.length && (lines[0]?.trim() === '' || prose.test(lines[0] ?? ''))) lines.shift();
  while (lines.length && lines[lines.length - 1]?.trim() === '') lines.pop();
  return lines.length ? lines.join('\n') + '\n' : '';
}

export interface AssembleContext {
  sandbox: string;
  tools: readonly string[];
  helpers: readonly string[];
  language?: ScriptLanguage;
  /** The skills offered: those the body names are defined ahead of it (a function each, any language). */
  skills?: readonly OfferedSkill[];
}

export function assembleScript(raw: string, ctx: AssembleContext): AssembledScript {
  const language = ctx.language ?? 'python';
  const body = stripFences(raw, language);
  const c = language === 'python' ? '#' : '//';
  const used = ctx.skills ? skillsUsed(body, ctx.skills, language) : [];
  const preamble = [
    `${c} toolsmith script · sandbox ${ctx.sandbox} · ${language}`,
    `${c} tools: ${ctx.tools.join(', ') || '(none)'}`,
    `${c} helpers: ${ctx.helpers.join(', ')}`,
    ...(used.length
      ? [
          `${c} skills: ${used.map((s) => s.name).join(', ')}`,
          ...skillsPrelude(used).replace(/\n$/, '').split('\n'),
        ]
      : []),
    `${c} --- body ---`,
  ];
  const postamble = [`${c} --- end of body ---`];
  return {
    language,
    body,
    code: `${preamble.join('\n')}\n${body}${body.endsWith('\n') || body === '' ? '' : '\n'}${postamble.join('\n')}\n`,
    bodyStartLine: preamble.length + 1,
  };
}

/** Maps a line of the assembled code to a line of the body (undefined outside the body). */
export function bodyLine(
  script: Pick<AssembledScript, 'bodyStartLine' | 'body'>,
  line: number,
): number | undefined {
  const l = line - script.bodyStartLine + 1;
  const count = script.body.split('\n').length - (script.body.endsWith('\n') ? 1 : 0);
  return l >= 1 && l <= Math.max(count, 1) ? l : undefined;
}
