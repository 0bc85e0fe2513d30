/**
 * Error lines: when a cell's execution ends in an error, highlight the line
 * that raised it, in whichever cell defined that code.
 *
 * The traceback's innermost `Cell In[N], line K` names the cell by its
 * execution count, so a function defined in one cell and called from another
 * points at its own definition. Highlights go away when a new execution is
 * scheduled or the highlighted cell is edited.
 */
import { Cell, ICodeCellModel } from '@jupyterlab/cells';
import { IOutput, isError } from '@jupyterlab/nbformat';
import { Notebook, NotebookActions } from '@jupyterlab/notebook';

import { clearKind, highlightLine } from './highlight';
import { ICellLocation, innermostCellLocation } from './traceback';

/** Start watching every notebook's executions for errors. */
export function watchErrors(): void {
  NotebookActions.executionScheduled.connect((_, { notebook }) => {
    clearKind(notebook, 'error');
  });
  NotebookActions.executed.connect((_, { notebook, cell }) => {
    recordExecution(notebook, cell);
    const location = errorLocation(cell);
    if (location !== null) {
      void showError(notebook, location);
    }
  });
}

/** Where the error output of a code cell points, if it has one. */
function errorLocation(cell: Cell): ICellLocation | null {
  if (cell.model.type !== 'code') {
    return null;
  }
  const outputs: IOutput[] = (cell.model as ICodeCellModel).outputs.toJSON();
  const error = outputs.find(isError);
  return error === undefined ? null : innermostCellLocation(error.traceback);
}

async function showError(
  notebook: Notebook,
  { executionCount, line }: ICellLocation
): Promise<void> {
  const cell = cellByExecutionCount(notebook, executionCount);
  if (cell !== null) {
    await highlightLine(notebook, cell, line, 'error');
  }
}

// Per notebook, the cell that last ran under each execution count.
const lastRun = new WeakMap<Notebook, Map<number, Cell>>();

function executionCount(cell: Cell): number | null {
  return cell.model.type === 'code'
    ? (cell.model as ICodeCellModel).executionCount
    : null;
}

function recordExecution(notebook: Notebook, cell: Cell): void {
  const count = executionCount(cell);
  if (count !== null) {
    const cells = lastRun.get(notebook) ?? new Map<number, Cell>();
    cells.set(count, cell);
    lastRun.set(notebook, cells);
  }
}

/**
 * The code cell that ran as `In[count]`. After a kernel restart an older cell
 * can still show the same count, so the cell seen running under it last wins.
 */
export function cellByExecutionCount(notebook: Notebook, count: number): Cell | null {
  const recorded = lastRun.get(notebook)?.get(count);
  if (
    recorded !== undefined &&
    !recorded.isDisposed &&
    executionCount(recorded) === count
  ) {
    return recorded;
  }
  return notebook.widgets.find(cell => executionCount(cell) === count) ?? null;
}
