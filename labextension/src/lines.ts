/**
 * CodeMirror 6 line highlights: at most one highlighted line per kind in an
 * editor, drawn as a line decoration with the kind's CSS class.
 *
 * A highlight refers to the code as it ran, so any edit of the document drops
 * all of that editor's highlights rather than moving them.
 */
import { StateEffect, StateField } from '@codemirror/state';
import { Decoration, DecorationSet, EditorView } from '@codemirror/view';

import { HighlightKind, KINDS, kindClass } from './kinds';

/** 1-based line number per highlighted kind. */
type Highlights = ReadonlyMap<HighlightKind, number>;

const setHighlight = StateEffect.define<{
  kind: HighlightKind;
  line: number | null;
}>();

const highlightField = StateField.define<Highlights>({
  create: () => new Map(),
  update(value, tr) {
    let next = tr.docChanged ? new Map<HighlightKind, number>() : value;
    for (const effect of tr.effects) {
      if (effect.is(setHighlight)) {
        const updated = new Map(next);
        const { kind, line } = effect.value;
        if (line === null) {
          updated.delete(kind);
        } else {
          updated.set(kind, line);
        }
        next = updated;
      }
    }
    return next;
  },
  provide: field =>
    EditorView.decorations.from(field, value => decorationsFor(value))
});

/** Line decorations for the highlights, sorted by position as CM requires. */
function decorationsFor(highlights: Highlights): (view: EditorView) => DecorationSet {
  return view => {
    const doc = view.state.doc;
    const ranges = KINDS.flatMap(kind => {
      const line = highlights.get(kind);
      if (line === undefined || line < 1 || line > doc.lines) {
        return [];
      }
      const from = doc.line(line).from;
      return [Decoration.line({ class: kindClass(kind) }).range(from)];
    });
    return Decoration.set(ranges, true);
  };
}

/** Add the highlight state to an editor that does not have it yet. */
function ensureField(view: EditorView): void {
  if (view.state.field(highlightField, false) === undefined) {
    view.dispatch({ effects: StateEffect.appendConfig.of(highlightField) });
  }
}

/**
 * Highlight a 1-based line of the editor as `kind`, replacing that kind's
 * previous line, and scroll it into view when `reveal`. Returns false when the
 * editor has no such line.
 */
export function setLine(
  view: EditorView,
  kind: HighlightKind,
  line: number,
  reveal: boolean
): boolean {
  if (!Number.isInteger(line) || line < 1 || line > view.state.doc.lines) {
    return false;
  }
  ensureField(view);
  const from = view.state.doc.line(line).from;
  const highlight = setHighlight.of({ kind, line });
  view.dispatch({
    effects: reveal
      ? [highlight, EditorView.scrollIntoView(from, { y: 'nearest' })]
      : [highlight]
  });
  return true;
}

/** Remove the editor's highlight of this kind, if any. */
export function clearLine(view: EditorView, kind: HighlightKind): void {
  const current = view.state.field(highlightField, false);
  if (current?.has(kind)) {
    view.dispatch({ effects: setHighlight.of({ kind, line: null }) });
  }
}
