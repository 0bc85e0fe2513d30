/**
 * Reading IPython tracebacks: where in which notebook cell an error was raised.
 */

/** A line in the code of the cell that ran as `In[executionCount]`. */
export interface ICellLocation {
  executionCount: number;
  line: number;
}

// CSI sequences (colours) and OSC sequences (hyperlinks) that IPython may emit.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

// IPython names a cell's frames "Cell In[3], line 7" (followed by ", in f" for
// frames inside functions).
const CELL_FRAME = /Cell In\[(\d+)\], line (\d+)/g;

/** Text with terminal escape sequences removed. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/**
 * The innermost notebook-cell frame of a traceback, or null when no frame
 * comes from a cell. Frames in library files are skipped: the user's own line
 * is the one to show.
 */
export function innermostCellLocation(
  traceback: readonly string[]
): ICellLocation | null {
  const text = stripAnsi(traceback.join('\n'));
  let location: ICellLocation | null = null;
  for (const match of text.matchAll(CELL_FRAME)) {
    location = { executionCount: Number(match[1]), line: Number(match[2]) };
  }
  return location;
}
