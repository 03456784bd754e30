/**
 * Ranked tool search (`search_tools`): BM25 (MiniSearch's BM25+) over each entry's name split into
 * words (`calendar_find_free_slot`, `getUserById`), its description and its parameters, English stop
 * words ignored and words reduced to a light stem (`meetings`, `meeting` -> `meet`). A query is words in a
 * person's own phrasing: every word may match, none must, and the entries that share the most (rare)
 * words rank first. Takes plain entries, so anything with a name and a description (tools, skills) can
 * be ranked together.
 */
import MiniSearch from 'minisearch';
import type { Tool } from './model.ts';

/** What can be searched: a name, a description and, for tools, parameter names and descriptions. */
export interface SearchEntry {
  name: string;
  description: string;
  /** Parameter names and descriptions (or any further words that describe the entry). */
  params?: readonly string[];
}

/** Words that say nothing about which tool is meant. */
const STOP_WORDS = new Set(
  (
    'a about an and any are as at be been being but by can could did do does doing done for from get give ' +
    'had has have having he her here his how i if in into is it its itself just let me mine my no nor not ' +
    'of off on once only or other our out over own please same she should so some such than that the their ' +
    'them then there these they this those through to too under until up very want was we were what when ' +
    'where which while who whom why will with would you your yours'
  ).split(' '),
);

/** A light English stem: plurals, -ing, -ed and a trailing e or doubled consonant go. */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 3 && w.endsWith('e')) w = w.replace(/e+$/, '');
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** Words of a text or an identifier: snake_case, kebab-case, camelCase and digits split apart. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

/**
 * Question forms people use for an operation, added to a query as the operation's words: a quantity
 * question asks for a count, a place question for a location or a tracking status.
 */
const QUESTION_FORMS: readonly [RegExp, string][] = [
  [/\bhow (many|much)\b|\bnumber of\b/i, 'count number total'],
  [/\bwhere (is|are)\b/i, 'where location track status'],
];

/**
 * Synonyms: the words people use for the operations and things tool descriptions name in their own
 * (usually CRUD and API) vocabulary. A person asks to "remove", "edit" or "download as a spreadsheet";
 * a tool says delete, update, export as CSV. BM25 only scores shared words, so without these a query
 * and its tool that share no word never meet. Each rule adds the tool-side words to the query, weighed
 * below its own words, so a tool that shares the person's words still ranks first. Kept to common verbs
 * and nouns of tool descriptions (not one domain's jargon); phrases are matched whole.
 */
const SYNONYMS: readonly [RegExp, string][] = [
  // operations
  [/\b(remove|erase|destroy|wipe|purge|drop)\b|\bfor good\b/i, 'delete permanently'],
  [
    /(?<!\bwho )\b(edit|edited|change|changed|modify|fix|correct|rename|amend|typo)\b/i,
    'update fields existing',
  ],
  [
    /\b(add|new|make|book|register|write|compose|draft|submit)\b|\btext (a|an|my|the|him|her|them)\b/i,
    'create new',
  ],
  [/\b(show|view|fetch|read|open|details?|lookup)\b|\blook up\b/i, 'get one'],
  [/\b(find|look for|lookup|query|filter)\b/i, 'search'],
  [/\b(download|spreadsheet|excel|csv|dump|backup)\b|\bsave as\b/i, 'export csv file'],
  [/\b(hide|shelve|retire|stash)\b|\bput away\b/i, 'archive no longer shows'],
  [
    /\bwho (edited|changed|modified|updated)\b|\b(audit|changelog|changes|edits|revisions)\b/i,
    'history changed who when',
  ],
  [/\b(cancel|stop|abort|call off|undo)\b/i, 'cancel'],
  [/\bmoney back\b|\b(reimburse|chargeback|return (the )?money)\b/i, 'refund payment'],
  [/\b(mail|e-mail|emails?)\b/i, 'email message'],
  [/\b(text|texts|texting)\b/i, 'sms text message'],
  // things
  [/\b(bills?|unpaid|owed|owes|billing)\b/i, 'invoice'],
  [/\b(employees?|staff|workers?|people|workforce|headcount)\b/i, 'employee employed people'],
  [
    /\b(rain|raining|sunny|snow|snowing|cold|hot|warm|windy)\b|\bright now\b/i,
    'weather current temperature rain wind',
  ],
  [/\b(flights?|hotels?|trips?)\b/i, 'travel trip booking'],
  [/\b(meetings?|appointments?)\b/i, 'calendar event meeting'],
  [/\b(package|delivery)\b/i, 'parcel'],
  [/\b(salary|salaries|paycheck|wages?)\b/i, 'payroll salary payslip'],
  [/\b(laptops?|computers?|devices?)\b/i, 'asset laptop'],
];

/** The words question forms and synonyms add to a query (weighed below the query's own words). */
export function questionWords(query: string): string {
  return [...QUESTION_FORMS, ...SYNONYMS]
    .filter(([re]) => re.test(query))
    .map(([, more]) => more)
    .join(' ');
}

/** How much a word a question form or a synonym adds weighs against a word of the query itself. */
const QUESTION_WORD_WEIGHT = 0.3;

const processTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : stem(t);
};

/** The entries ranked for a query, best first (at most `limit`); entries that match no word are left out. */
export function rankEntries<E extends SearchEntry>(entries: readonly E[], query: string, limit = 20): E[] {
  const index = new MiniSearch<{ id: number; name: string; description: string; params: string }>({
    fields: ['name', 'description', 'params'],
    tokenize: (text) => words(text),
    processTerm,
    searchOptions: {
      boost: { name: 3, description: 1.5, params: 0.5 },
      combineWith: 'OR',
      // A query word that starts an indexed one (`emp` -> `employee`), and one typo in a long word.
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 1 : false),
      weights: { prefix: 0.4, fuzzy: 0.3 },
    },
  });
  index.addAll(
    entries.map((e, id) => ({
      id,
      name: e.name,
      description: e.description,
      params: (e.params ?? []).join(' '),
    })),
  );
  const own = words(query)
    .map(processTerm)
    .filter((t) => t !== null).length;
  const found = index.search(`${query} ${questionWords(query)}`, {
    boostTerm: (_term, i) => (i < own ? 1 : QUESTION_WORD_WEIGHT),
  });
  // Results that share only words most entries hold ("number" in "Echo number N") are noise beside a
  // result that shares a distinctive one; when none does, every result stays.
  const holding = new Map<string, number>();
  for (const r of found) for (const t of r.queryTerms) holding.set(t, (holding.get(t) ?? 0) + 1);
  const distinctive = (r: (typeof found)[number]) =>
    r.queryTerms.some((t) => (holding.get(t) ?? 0) <= entries.length / 2);
  const kept = found.some(distinctive) ? found.filter(distinctive) : found;
  return kept.slice(0, limit).map((r) => entries[r.id as number] as E);
}

/** A tool as a search entry: its name, description, and each parameter's name and description. */
export const toolEntry = (t: Tool): SearchEntry & { tool: Tool } => ({
  name: t.name,
  description: t.description,
  params: t.parameters.flatMap((p) => [p.name, p.description]),
  tool: t,
});

/** Tools ranked for a query, best first. */
export function rankTools(tools: readonly Tool[], query: string, limit = 20): Tool[] {
  return rankEntries(tools.map(toolEntry), query, limit).map((e) => e.tool);
}
