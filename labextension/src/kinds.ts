/**
 * The kinds of line highlight, one CSS class each.
 *
 * `error`: the line where an exception was raised; `step`: the line a
 * step-through recording is showing; `node`: the source line of a graph node.
 */
export const KINDS = ['error', 'step', 'node'] as const;

export type HighlightKind = (typeof KINDS)[number];

/** Whether a value names a highlight kind. */
export function isKind(value: unknown): value is HighlightKind {
  return (KINDS as readonly unknown[]).includes(value);
}

/**
 * Whether highlighting a line of this kind scrolls the notebook to it. A node's
 * line does not: the user is working in the graph view, whose panel quotes the
 * line, and scrolling would move the drawing under the pointer between the two
 * clicks of a double-click.
 */
export function revealsLine(kind: HighlightKind): boolean {
  return kind !== 'node';
}

/** The CSS class a highlighted line of this kind carries. */
export function kindClass(kind: HighlightKind): string {
  return `nbgraph-line-${kind}`;
}
