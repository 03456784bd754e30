/**
 * Records the page's browser dialogs (`confirm`, `alert`, `prompt`, `beforeunload`) and answers each:
 * dismissed ("Cancel") until `answer(true)`, then accepted ("OK"). `stop()` removes the listener (call it
 * in a `finally`: the page is shared by the file's tests).
 */
import type { Dialog, Page } from 'playwright-core';

export interface DialogRecorder {
  /** The messages, in the order the dialogs opened. */
  readonly messages: string[];
  /** Each dialog's type and message, in the order they opened. */
  readonly dialogs: { type: string; message: string }[];
  /** How the next dialogs are answered: true accepts, false (the start) dismisses. */
  answer(accept: boolean): void;
  stop(): void;
}

export function recordDialogs(page: Page): DialogRecorder {
  const messages: string[] = [];
  const dialogs: { type: string; message: string }[] = [];
  let accept = false;
  const onDialog = (d: Dialog) => {
    messages.push(d.message());
    dialogs.push({ type: d.type(), message: d.message() });
    void (accept ? d.accept() : d.dismiss());
  };
  page.on('dialog', onDialog);
  return {
    messages,
    dialogs,
    answer: (a) => {
      accept = a;
    },
    stop: () => {
      page.off('dialog', onDialog);
    },
  };
}
