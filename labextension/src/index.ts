import {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { serveNotebook } from './comm';
import { watchErrors } from './errors';
import { clearKind } from './highlight';
import { applySettings } from './settings';
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

/** The user's settings: which kinds of line are highlighted, and their colours. */
const highlightSettings: JupyterFrontEndPlugin<void> = {
  id: 'nbgraph-labextension:settings',
  description: 'Applies the line highlight settings from the settings editor.',
  autoStart: true,
  requires: [ISettingRegistry, INotebookTracker],
  activate: async (
    _app: JupyterFrontEnd,
    registry: ISettingRegistry,
    tracker: INotebookTracker
  ): Promise<void> => {
    const settings = await registry.load(highlightSettings.id);
    const apply = (): void => {
      for (const kind of applySettings(settings)) {
        tracker.forEach(panel => clearKind(panel.content, kind));
      }
    };
    apply();
    settings.changed.connect(apply);
  }
};

export default [errorLines, kernelHighlights, widgetHighlights, highlightSettings];
