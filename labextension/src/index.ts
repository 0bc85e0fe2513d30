import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';

import { serveNotebook } from './comm';
import { watchErrors } from './errors';
import { listenForHighlights } from './stepEvents';

/** Highlights the line that raised a cell's error. */
const errorLines: JupyterFrontEndPlugin<void> = {
  id: 'nbgraph-labextension:error-lines',
  description: 'Highlights the line of a notebook cell where an error was raised.',
  autoStart: true,
  activate: (): void => {
    watchErrors();
  }
};

/** Lets the kernel highlight lines through the `nbgraph` comm target. */
const kernelHighlights: JupyterFrontEndPlugin<void> = {
  id: 'nbgraph-labextension:kernel-highlights',
  description: 'Highlights notebook cell lines on request of the kernel.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker): void => {
    tracker.forEach(serveNotebook);
    tracker.widgetAdded.connect((_, panel) => serveNotebook(panel));
  }
};

/** Lets widgets in a notebook (the stepper) highlight lines through DOM events. */
const widgetHighlights: JupyterFrontEndPlugin<void> = {
  id: 'nbgraph-labextension:widget-highlights',
  description: 'Highlights notebook cell lines on request of widgets in the page.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (_app: JupyterFrontEnd, tracker: INotebookTracker): void => {
    listenForHighlights(tracker);
  }
};

export default [errorLines, kernelHighlights, widgetHighlights];
