/**
 * The user's highlight settings, edited in JupyterLab's settings editor
 * (schema/settings.json): which kinds of line are highlighted, and in which
 * colour. Colours reach the CSS (style/base.css) as custom properties.
 */
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { HighlightKind, KINDS } from './kinds';

/** One kind's options, as the schema defines them. */
interface KindOptions {
  enabled?: boolean;
  color?: string;
}

const disabled = new Set<HighlightKind>();

/** Whether lines of this kind are highlighted at all. */
export function isEnabled(kind: HighlightKind): boolean {
  return !disabled.has(kind);
}

/** The CSS custom property that carries a kind's colour. */
function colorProperty(kind: HighlightKind): string {
  return `--nbgraph-${kind}-color`;
}

/**
 * Apply the settings; returns the kinds that were on and are now off, whose
 * highlights the caller removes.
 */
export function applySettings(
  settings: ISettingRegistry.ISettings
): HighlightKind[] {
  const turnedOff: HighlightKind[] = [];
  const style = document.documentElement.style;
  for (const kind of KINDS) {
    const options = (settings.composite[kind] ?? {}) as KindOptions;
    if (options.enabled === false) {
      if (!disabled.has(kind)) {
        turnedOff.push(kind);
      }
      disabled.add(kind);
    } else {
      disabled.delete(kind);
    }
    const color = options.color?.trim() ?? '';
    if (color !== '' && CSS.supports('color', color)) {
      style.setProperty(colorProperty(kind), color);
    } else {
      if (color !== '') {
        console.warn(`nbgraph: "${color}" is not a CSS colour (${kind} lines)`);
      }
      style.removeProperty(colorProperty(kind));
    }
  }
  return turnedOff;
}
