import type { ESLint } from 'eslint';

/** Room → the rooms it may import (eslint-layers.js). */
export const LAYERS: Readonly<Record<string, readonly string[]>>;
export const layersPlugin: ESLint.Plugin;
