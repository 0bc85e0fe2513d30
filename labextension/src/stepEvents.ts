/**
 * Line highlights requested by widgets in the page, without the kernel.
 *
 * The stepper widget steps through a recording in the browser, so the kernel
 * does not know which step is shown. The widget dispatches a bubbling DOM event
 * instead, and the notebook that contains it highlights the line:
 *
 *   new CustomEvent('nbgraph:highlight', {bubbles: true, detail: {
 *     cellId: str | null, executionCount: int | null, line: int (1-based), kind}})
 *   ... or detail {clear: true, kind} to remove that kind's highlight.
 *
 * The cell is found by id, else by the execution count it ran under (`In[n]`).
 */
import { INotebookTracker, Notebook } from '@jupyterlab/notebook';

import { cellByExecutionCount } from './errors';
import { clearKind, findCellById, highlightLine } from './highlight';
import { HighlightKind, isKind } from './kinds';

export const HIGHLIGHT_EVENT = 'nbgraph:highlight';

/** A validated request from a widget. */
export type HighlightRequest =
  | {
      action: 'highlight';
      cellId: string | null;
      executionCount: number | null;
      line: number;
      kind: HighlightKind;
    }
  | { action: 'clear'; kind: HighlightKind };

/** The request in an event's detail, or null when it is not a valid one. */
export function parseRequest(detail: unknown): HighlightRequest | null {
  if (typeof detail !== 'object' || detail === null) {
    return null;
  }
  const { cellId, executionCount, line, kind, clear } = detail as Record<
    string,
    unknown
  >;
  if (!isKind(kind)) {
    return null;
  }
  if (clear === true) {
    return { action: 'clear', kind };
  }
  const id = typeof cellId === 'string' && cellId !== '' ? cellId : null;
  const count =
    typeof executionCount === 'number' && Number.isInteger(executionCount)
      ? executionCount
      : null;
  if (
    (id === null && count === null) ||
    typeof line !== 'number' ||
    !Number.isInteger(line)
  ) {
    return null;
  }
  return { action: 'highlight', cellId: id, executionCount: count, line, kind };
}

async function apply(
  notebook: Notebook,
  request: HighlightRequest
): Promise<void> {
  if (request.action === 'clear') {
    clearKind(notebook, request.kind);
    return;
  }
  const byId =
    request.cellId === null ? null : findCellById(notebook, request.cellId);
  const cell =
    byId ??
    (request.executionCount === null
      ? null
      : cellByExecutionCount(notebook, request.executionCount));
  if (cell !== null) {
    await highlightLine(notebook, cell, request.line, request.kind);
  }
}

/** Handle the highlight events of widgets in any notebook the tracker knows. */
export function listenForHighlights(tracker: INotebookTracker): void {
  document.addEventListener(HIGHLIGHT_EVENT, event => {
    const request = parseRequest((event as CustomEvent<unknown>).detail);
    const target = event.target;
    const panel =
      target instanceof Node
        ? tracker.find(candidate => candidate.node.contains(target))
        : undefined;
    if (request === null) {
      console.warn('nbgraph: ignoring highlight request', event);
    } else if (panel !== undefined) {
      void apply(panel.content, request);
    }
  });
}
