/**
 * What a verb says about the workspace's config and folder as the service opens them: warnings (a
 * config that may be cut short, `[approval]` names that match nothing), a link to the workspace that
 * was retargeted (servers), and an invalid config for the verbs that answer without one. Loaded with
 * the service (context.ts `loadService`), not at the start of every verb.
 */
import type { Command } from 'commander';
import type { ServiceOptions } from '../app/service.ts';
import { visible } from '../core/text/visible.ts';

/**
 * Verbs that read only what config.toml does not shape: recorded runs (SQLite), template and skill
 * files. An invalid config.toml is said on stderr (its error names the file and the line) and they
 * answer anyway; every other verb refuses it (exit 3), since its answer depends on the config (a
 * sandbox's tools and MCP servers, grades, isolation, providers). `runs export --otlp` sends to the
 * configured collector: refused. The rule is in the README's command-line section.
 */
const READS_NO_CONFIG = new Set([
  'runs list',
  'runs show',
  'runs export',
  'template list',
  'skill list',
  'skill show',
]);

/** Whether `cmd` answers while config.toml is invalid (READS_NO_CONFIG). */
function readsNoConfig(cmd: Command): boolean {
  const path = `${cmd.parent?.name() ?? ''} ${cmd.name()}`;
  if (!READS_NO_CONFIG.has(path)) return false;
  return path !== 'runs export' || cmd.getOptionValue('otlp') === undefined;
}

/** A config's warning as a verb says it on stderr (a key or a name of the file's own shown, never acted on). */
export const configWarningLine = (line: string): string => `toolsmith: warning: ${visible(line)}\n`;

/** The service's options that say these things on `err`, for the command `cmd`. */
export function configWords(
  cmd: Command,
  err: (text: string) => void,
): Pick<ServiceOptions, 'onWorkspaceLinkMoved' | 'onConfigWarning' | 'onInvalidConfig'> {
  return {
    // A server opened through a link that is retargeted: it stays, and says so (app/workspace-link.ts).
    onWorkspaceLinkMoved: (line) => err(`toolsmith ${cmd.name()}: ${line}\n`),
    // A config that may be cut short, an [approval] name that matches nothing: said, the verb goes on.
    // (a key or a name of the file's own shown, never acted on: a control character in it, an ESC)
    onConfigWarning: (line) => err(configWarningLine(line)),
    // An invalid config.toml, for a verb that does not need it: said, and the verb answers. (Its words
    // quote the file's own keys: an ESC there reached the terminal, as a warning's did before.)
    ...(readsNoConfig(cmd)
      ? {
          onInvalidConfig: (message: string) =>
            err(
              `toolsmith: warning: ${visible(message)} (the config is not used: ${cmd.parent?.name()} ${cmd.name()} does not need it; the verbs that do refuse it until it is fixed)\n`,
            ),
        }
      : {}),
  };
}
