/**
 * Line highlights addressed by notebook cell: the glue between a notebook's
 * cells and the CodeMirror editors that draw the highlights.
 */
import { Cell } from '@jupyterlab/cells';
import { CodeMirrorEditor } from '@jupyterlab/codemirror';
import { Notebook } from '@jupyterlab/notebook';

import { HighlightKind, revealsLine } from './kinds';
import { clearLine, setLine } from './lines';
import { isEnabled } from './settings';

/** The cell with this id (the nbformat cell id the kernel sees), if any. */
export function findCellById(notebook: Notebook, cellId: string): Cell | null {
  return notebook.widgets.find(cell => cell.model.id === cellId) ?? null;
}

/** The CodeMirror editor of a cell, once the cell is rendered. */
function editorView(cell: Cell): CodeMirrorEditor['editor'] | null {
  const editor = cell.editor;
  return editor instanceof CodeMirrorEditor ? editor.editor : null;
}

/**
 * Highlight a 1-based line of a cell as `kind`, bringing it into view when the
 * kind reveals its line.
 *
 * A notebook may render cells lazily, so the cell is scrolled to first (when
 * revealed) and its editor awaited. Resolves to false when the cell has no such line, or
 * when the user's settings turn this kind of highlight off.
 */
export async function highlightLine(
  notebook: Notebook,
  cell: Cell,
  line: number,
  kind: HighlightKind
): Promise<boolean> {
  clearKind(notebook, kind);
  if (!isEnabled(kind)) {
    return false;
  }
  const index = notebook.widgets.indexOf(cell);
  if (index < 0) {
    return false;
  }
  const reveal = revealsLine(kind);
  if (reveal) {
    await notebook.scrollToItem(index, 'auto').catch(() => undefined);
  }
  await cell.ready;
  const view = editorView(cell);
  return view !== null && setLine(view, kind, line, reveal);
}

/** Remove every highlight of this kind from the notebook's cells. */
export function clearKind(notebook: Notebook, kind: HighlightKind): void {
  for (const cell of notebook.widgets) {
    const view = editorView(cell);
    if (view !== null) {
      clearLine(view, kind);
    }
  }
}
