/**
 * Keys of config.toml that no setting has (`timout_s = 30` under `[limits]`, a `[limit]` table): the
 * schema drops them, so the setting the person meant keeps its default and nothing said so. Each is told
 * (a warning, not a refusal: a key a newer Toolsmith reads should not stop this one), with the file, the
 * line, and the setting of that table whose name is near.
 */
import type { z } from 'zod';
import { closest } from '../core/text/near-names.ts';
import { configSchema, lineOfField } from './config.ts';
import type { Config } from './config.ts';
import { approvalNameProblems, toolNamesByContent } from './approval-names.ts';
import { parseTomlFile } from '../infra/workspace/files.ts';
import type { WorkspaceFiles } from '../infra/workspace/files.ts';

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  catchall?: z.ZodType;
};
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Schemas that wrap another one for the same value (a default, an optional, a transform's input). */
const WRAPPERS = new Set(['default', 'optional', 'nullable', 'prefault', 'readonly', 'catch', 'pipe']);

/** The schema a wrapper stands for, followed down to one that is not a wrapper. */
function unwrap(s: z.ZodType): z.ZodType {
  const d = defOf(s);
  const inner = d.type === 'pipe' ? d.in : d.innerType;
  return WRAPPERS.has(d.type) && inner ? unwrap(inner) : s;
}

/** The object shapes a value at this place may have (several for a union), or none where any key goes. */
function shapesOf(s: z.ZodType): { keys: Set<string>; of: (key: string) => z.ZodType | undefined }[] {
  const d = defOf(unwrap(s));
  switch (d.type) {
    case 'union':
      return (d.options ?? []).flatMap(shapesOf);
    case 'object': {
      // A strict object already refuses an unknown key (an error naming it); a catch-all takes any.
      if (d.catchall && defOf(d.catchall).type !== 'unknown') return [];
      const shape = d.shape ?? {};
      return [{ keys: new Set(Object.keys(shape)), of: (k) => shape[k] }];
    }
    default:
      return [];
  }
}

function walk(
  value: unknown,
  schema: z.ZodType,
  path: (string | number)[],
  out: { path: (string | number)[]; near?: string }[],
): void {
  const d = defOf(unwrap(schema));
  if (d.type === 'array' && d.element && Array.isArray(value))
    return value.forEach((v, i) => walk(v, d.element!, [...path, i], out));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  if (d.type === 'record' && d.valueType) {
    for (const [k, v] of Object.entries(value)) walk(v, d.valueType, [...path, k], out);
    return;
  }
  const shapes = shapesOf(schema);
  if (shapes.length === 0) return;
  for (const [k, v] of Object.entries(value)) {
    const known = shapes.filter((s) => s.keys.has(k));
    if (known.length === 0) {
      const near = closest(k, [...new Set(shapes.flatMap((s) => [...s.keys]))]);
      out.push({ path: [...path, k], ...(near ? { near } : {}) });
      continue;
    }
    const child = known[0]!.of(k);
    if (child) walk(v, child, [...path, k], out);
  }
}

/**
 * The most keys named one by one: each is looked for in the whole text (its line), so thousands of them
 * (a pasted table of data) took minutes on every verb; the rest are counted.
 */
export const MAX_KEY_WARNINGS = 20;

/** A key as TOML writes it: bare when it may be, else quoted (escapes shown, never acted on). */
const keyText = (k: string) => (/^[A-Za-z_-][A-Za-z0-9_-]*$/.test(k) ? k : JSON.stringify(k));

/** One warning per key no setting has, in the file's words. */
export function unknownConfigKeys(raw: unknown, file: string, text: string | undefined): string[] {
  const found: { path: (string | number)[]; near?: string }[] = [];
  walk(raw, configSchema, [], found);
  const said = found.slice(0, MAX_KEY_WARNINGS).map(({ path, near }) => {
    const line = text === undefined ? undefined : lineOfField(text, path);
    // `providers[1].modle`: an array of tables' entry by its index (a key of digits is a key: `limits."5"`).
    const name = path
      .map((k, i) => (typeof k === 'number' ? `[${k}]` : (i ? '.' : '') + keyText(k)))
      .join('');
    return `${file}${line ? `:${line}` : ''}: ${name} is no setting${near ? ` (did you mean ${near}?)` : ''}: it is ignored, and what it was meant to set keeps its default; fix or remove it`;
  });
  const more = found.length - said.length;
  if (more > 0)
    said.push(
      `${file}: ${more} more key${more === 1 ? '' : 's'} no setting has (the first ${MAX_KEY_WARNINGS} are named above): they are ignored; fix or remove them`,
    );
  return said;
}

/**
 * The config in use's warnings (keys no setting has, `[approval]` names that match nothing), kept in
 * `files.configWarnings` for `system.status` (the workbench shows them) and said through `say` (stderr of
 * the CLI, `serve` and `mcp`) when new: at open, after an edit applied live, and when a sandbox folder is
 * made or removed (before, only at start: a typo saved into a running server's config held no call for
 * approval, and nothing said so).
 */
export function sayConfigWarnings(files: WorkspaceFiles, config: Config, say?: (line: string) => void): void {
  const before = new Set(files.configWarnings);
  const text = files.inUseConfigText;
  let raw: unknown;
  try {
    raw = text === undefined ? {} : parseTomlFile(files.configFile, text);
  } catch {
    raw = {}; // the config in use parsed when it was taken: never here
  }
  const parsed = new Map<string, readonly string[] | undefined>();
  files.configWarnings = [
    ...unknownConfigKeys(raw, files.configFile, text),
    ...approvalNameProblems(
      config,
      files.configFile,
      text,
      files.sandboxNames(),
      files.kitFiles().map((k) => k.file),
      (sandbox) => {
        // (each sandbox's tools.py read once, however many of its tools [approval] names; parsed only
        // when its text changed since it was last parsed)
        if (!parsed.has(sandbox))
          try {
            parsed.set(sandbox, toolNamesByContent.names(files.readTools(sandbox)));
          } catch {
            parsed.set(sandbox, undefined); // no tools.py to read: its tools are not known here
          }
        return parsed.get(sandbox);
      },
    ),
  ];
  for (const line of files.configWarnings) if (!before.has(line)) say?.(line);
}
