/**
 * Host commands confirmed by a person: a compromised renderer can save an MCP server (or open a
 * workspace whose config names one), but the command starts on this computer only after a native dialog
 * in the main process showed its exact command, arguments, working folder and environment names, and
 * a person chose to run it. A confirmation is remembered for the session, per exact command. No Electron
 * import: the dialog is passed in, so tests drive the decision without the binary.
 */
import type { HostCommand } from '../infra/mcp/manager.ts';

export interface ConfirmDialog {
  /** Shows the message; resolves with the index of the button chosen. */
  (opts: {
    type: 'warning';
    title: string;
    message: string;
    detail: string;
    buttons: string[];
    defaultId: number;
    cancelId: number;
    noLink: boolean;
  }): Promise<{ response: number }>;
}

/** The key a confirmation is remembered under: everything that decides what runs. */
export const commandKey = (c: HostCommand): string => JSON.stringify([c.command, c.args, c.cwd, c.env]);

/** What the dialog says: the exact command line, as data (quoted arguments, one per line). */
export function confirmText(c: HostCommand): { message: string; detail: string } {
  return {
    message: `Run a command on this computer for MCP server "${c.server}"?`,
    detail: [
      `Command: ${JSON.stringify(c.command)}`,
      `Arguments: ${c.args.length ? c.args.map((a) => JSON.stringify(a)).join(' ') : '(none)'}`,
      `Working folder: ${c.cwd}`,
      `Environment variables given: ${c.env.length ? c.env.join(', ') : '(none)'}`,
      '',
      'It runs with your user rights, outside any sandbox. Run it only if you added this server yourself.',
    ].join('\n'),
  };
}

export class CommandApprovals {
  private readonly approved = new Set<string>();
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly dialog: ConfirmDialog;
  constructor(dialog: ConfirmDialog) {
    this.dialog = dialog;
  }

  /** Resolves when the command may run; rejects with the reason when the person refused it. */
  async approve(c: HostCommand): Promise<void> {
    const key = commandKey(c);
    if (this.approved.has(key)) return;
    let asked = this.pending.get(key);
    if (!asked) {
      const text = confirmText(c);
      asked = this.dialog({
        type: 'warning',
        title: 'Toolsmith: run a command?',
        ...text,
        buttons: ['Run', 'Cancel'],
        defaultId: 1,
        cancelId: 1,
        noLink: true,
      }).then((r) => r.response === 0);
      this.pending.set(key, asked);
    }
    const yes = await asked.finally(() => this.pending.delete(key));
    if (!yes)
      throw new Error(`running ${c.command} was not confirmed (the desktop asked; Cancel was chosen)`);
    this.approved.add(key);
  }
}
