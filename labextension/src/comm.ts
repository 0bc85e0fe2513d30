/**
 * The `nbgraph` comm target: lets kernel-side code (step-through recordings,
 * graph views) highlight and clear lines in the notebook's cells.
 *
 * Messages, as comm-open data or later comm messages:
 *   {"action": "highlight", "cell_id": str, "line": int (1-based), "kind": kind}
 *   {"action": "clear", "kind": kind}   (no kind: every kind)
 */
import { Notebook, NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';

import { clearKind, findCellById, highlightLine } from './highlight';
import { HighlightKind, KINDS, isKind } from './kinds';

export const COMM_TARGET = 'nbgraph';

/** A validated message from the kernel. */
export type FrontendMessage =
  | { action: 'highlight'; cellId: string; line: number; kind: HighlightKind }
  | { action: 'clear'; kinds: readonly HighlightKind[] };

/** The message in a comm payload, or null when it is not a valid one. */
export function parseMessage(data: unknown): FrontendMessage | null {
  if (typeof data !== 'object' || data === null) {
    return null;
  }
  const { action, cell_id, line, kind } = data as Record<string, unknown>;
  if (
    action === 'highlight' &&
    typeof cell_id === 'string' &&
    typeof line === 'number' &&
    Number.isInteger(line) &&
    isKind(kind)
  ) {
    return { action, cellId: cell_id, line, kind };
  }
  if (action === 'clear' && (kind === undefined || kind === null)) {
    return { action, kinds: KINDS };
  }
  if (action === 'clear' && isKind(kind)) {
    return { action, kinds: [kind] };
  }
  return null;
}

/** Carry out a message on the notebook the kernel belongs to. */
async function apply(notebook: Notebook, data: unknown): Promise<void> {
  const message = parseMessage(data);
  if (message === null) {
    console.warn('nbgraph: ignoring comm message', data);
  } else if (message.action === 'clear') {
    message.kinds.forEach(kind => clearKind(notebook, kind));
  } else {
    const cell = findCellById(notebook, message.cellId);
    if (cell !== null) {
      await highlightLine(notebook, cell, message.line, message.kind);
    }
  }
}

/** Register the comm target on a notebook's kernel, now and after kernel changes. */
export function serveNotebook(panel: NotebookPanel): void {
  const onOpen = (
    comm: Kernel.IComm,
    msg: KernelMessage.ICommOpenMsg
  ): void => {
    void apply(panel.content, msg.content.data);
    comm.onMsg = message => apply(panel.content, message.content.data);
  };
  const register = (): void => {
    panel.sessionContext.session?.kernel?.registerCommTarget(COMM_TARGET, onOpen);
  };
  panel.sessionContext.kernelChanged.connect(register);
  register();
}
