/**
 * Opening a workspace's files and config, as every opener does: the service (app/service.ts) and the
 * read-only opener of the listing verbs (app/workspace-reader.ts). Kept apart from the service so that a
 * verb that only reads (`runs list`, `template list`, `mcp-servers list`) loads none of the service's
 * modules (the script validators, the run orchestrator, pino, the suites).
 */
import {
  cutShortHint,
  cutShortWarning,
  parseTomlFile,
  readConfigText,
  WorkspaceError,
  WorkspaceFiles,
} from '../infra/workspace/files.ts';
import { parseConfig } from './config.ts';
import type { Config } from './config.ts';
import { ToolsmithError } from './errors.ts';
import { learnConfigSecrets, learnConfigTextSecrets } from './settings.ts';

/** What an opener is told about the config as it is read (see ServiceOptions in app/service.ts). */
export interface ConfigWordsOptions {
  onInvalidConfig?: (message: string) => void;
  onConfigWarning?: (line: string) => void;
}

/**
 * The workspace's files and config, opened as a verb that reads them opens them: the config read (an
 * invalid one refused, or told to `onInvalidConfig` with the defaults in its place), the secrets it names
 * learned (redacted from what is printed), the sandboxes that declare MCP servers set on the files, and
 * its warnings said. The service adds the rest (app/service.ts `ToolsmithService.open`).
 */
export function openWorkspaceFiles(
  root: string,
  options: ConfigWordsOptions,
): { files: WorkspaceFiles; config: Config } {
  try {
    const files = new WorkspaceFiles(root);
    const config = loadConfigOr(files, options.onInvalidConfig, options.onConfigWarning);
    return { files, config };
  } catch (e) {
    if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_config', e.message);
    throw e;
  }
}

/** A config taken into use: its secrets learned and the sandboxes that declare MCP servers noted. */
export function useConfig(files: WorkspaceFiles, config: Config): void {
  learnConfigSecrets(config);
  files.declaredSandboxes = declaredSandboxes(config);
}

/** The sandboxes that declare MCP servers (their folders may hold no tools.py). */
export function declaredSandboxes(config: Config): Set<string> {
  return new Set(
    Object.entries(config.sandboxes)
      .filter(([, s]) => Object.keys(s.mcp).length > 0)
      .map(([n]) => n),
  );
}

/**
 * The workspace's config; when it is invalid and `onInvalid` is given, the error is told there and the
 * defaults stand in (never written back: the file in use stays unknown, so no save starts from them).
 */
export function loadConfigOr(
  files: WorkspaceFiles,
  onInvalid?: (message: string) => void,
  onWarning?: (line: string) => void,
): Config {
  try {
    return loadConfig(files, onWarning);
  } catch (e) {
    if (!onInvalid || !(e instanceof ToolsmithError) || e.code !== 'invalid_config') throw e;
    // The secrets it names are still redacted from what the verb prints (a run that holds a provider's
    // key was shown whole while the config was invalid, [redacted] once it was fixed).
    try {
      learnConfigTextSecrets(readConfigText(files.configFile) ?? '');
    } catch {
      // (unreadable: nothing more to learn from it)
    }
    onInvalid(e.message);
    return parseConfig({});
  }
}

/** Reads, parses and validates the workspace's config (errors name the file, line and field). */
export function loadConfig(files: WorkspaceFiles, onWarning?: (line: string) => void): Config {
  try {
    const text = readConfigText(files.configFile);
    const raw = text === undefined ? {} : parseTomlFile(files.configFile, text);
    let config: Config;
    try {
      config = parseConfig(raw, files.configFile, text);
    } catch (e) {
      // A reference to a table the file lacks, in a file that stops mid-line: the table may be in the
      // part that was not written.
      const hint = text === undefined ? '' : cutShortHint(text);
      if (hint && e instanceof ToolsmithError)
        throw new ToolsmithError(e.code, `${e.message}${hint}`, e.details);
      throw e;
    }
    // An empty last table that changes nothing (the config read without it is the same) may be a cut.
    const sameWithout = (without: string): boolean => {
      try {
        const fewer = parseConfig(parseTomlFile(files.configFile, without), files.configFile, without);
        return JSON.stringify(fewer) === JSON.stringify(config);
      } catch {
        return false;
      }
    };
    const cut = text === undefined ? undefined : cutShortWarning(files.configFile, text, sameWithout);
    if (cut) onWarning?.(cut);
    files.inUseConfigText = text;
    return config;
  } catch (e) {
    if (e instanceof WorkspaceError) throw new ToolsmithError('invalid_config', e.message);
    throw e;
  }
}
