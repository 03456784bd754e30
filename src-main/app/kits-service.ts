/**
 * Kits for every front end: the list the workbench shows, and saving a kit file (`kits.save` from the
 * kit editor, `toolsmith kit create` from the command line) under one rule.
 */
import { existsSync } from 'node:fs';
import { stringify } from 'smol-toml';
import type { KitDefinition, ResolvedKit } from '../core/kits/kit.ts';
import type { Response } from '../contract/api.ts';
import { WorkspaceError } from '../infra/workspace/files.ts';
import { ToolsmithError } from './errors.ts';
import type { KitEntry } from './catalog.ts';
import type { WorkspaceDeps } from './deps.ts';

/** What kits need: the kit files, and resolving a definition against its sandbox's tools. */
export interface KitDeps extends WorkspaceDeps {
  kits(): KitEntry[];
  resolveKitDefinition(def: KitDefinition): ResolvedKit;
}

/** The workspace's kits, each resolved or with the reason it cannot be used. */
export function listKits(svc: Pick<KitDeps, 'kits'>): Response<'kits.list'> {
  return svc.kits().map((k) => ({
    name: k.name,
    sandbox: k.sandbox,
    ...(k.kit !== undefined ? { kit: k.kit } : {}),
    ...(k.error !== undefined ? { error: k.error } : {}),
  }));
}

export interface SaveKitOptions {
  /**
   * Replace the file of a kit that exists already. Without it an existing kit is refused
   * (`invalid_argument`, details `{ exists: file }`) and nothing is written.
   */
  overwrite?: boolean;
}

export interface SavedKit {
  name: string;
  file: string;
  kit: ResolvedKit;
  /** An existing kit file was replaced. */
  replaced: boolean;
}

/**
 * Writes `kits/<name>.kit`. The one rule for every front end: the name must be a plain file name; an
 * existing kit is replaced only with `overwrite` (the workbench's kit editor always saves over, the CLI
 * with `--force`); the definition must resolve (known tools, grade within the workspace's maximum)
 * before anything is written.
 */
export function saveKit(svc: KitDeps, def: KitDefinition, options: SaveKitOptions = {}): SavedKit {
  let file: string;
  try {
    file = svc.files.kitFile(def.name);
  } catch (e) {
    if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_argument', e.message);
    throw e;
  }
  const replaced = existsSync(file);
  if (replaced && !options.overwrite)
    throw new ToolsmithError('invalid_argument', `kit ${def.name} exists (${file})`, { exists: file });
  // One key order in every kit file, whoever writes it.
  const canonical: KitDefinition = {
    name: def.name,
    sandbox: def.sandbox,
    ...(def.description !== undefined ? { description: def.description } : {}),
    tools: def.tools,
  };
  const kit = svc.resolveKitDefinition(canonical);
  const written = svc.files.writeKit(def.name, stringify(canonical) + '\n');
  return { name: def.name, file: written, kit, replaced };
}

/** The kits feature every front end calls (built once by the composition root). */
export function kitsFeature(deps: KitDeps) {
  return {
    /** The kits as front ends list them (resolved, or with the reason they cannot be used). */
    list: () => listKits(deps),
    /** Writes a kit file; an existing kit is replaced only with `overwrite`. */
    save: (def: KitDefinition, options: SaveKitOptions = {}) => saveKit(deps, def, options),
  };
}
export type KitsFeature = ReturnType<typeof kitsFeature>;
