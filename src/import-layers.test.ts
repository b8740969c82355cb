import { Linter } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LAYERS, layersPlugin } from '../eslint-layers.js';

// The one-way rule of eslint-layers.js on real paths under src/: a rule that silently checked
// nothing (a path it cannot place) would let every import through.

const linter = new Linter({ configType: 'flat' });
const lint = (file: string, code: string) =>
  linter
    .verify(code, [{ files: ['**/*.ts'], plugins: { layers: layersPlugin }, rules: { 'layers/one-way': 'error' } }], {
      filename: fileURLToPath(new URL(file, import.meta.url)),
    })
    .map((m) => m.message);

describe('layers/one-way', () => {
  it('refuses an import against the flow, naming both rooms', () => {
    expect(lint('./lifecycle/x.ts', "import { a } from '../store/database.js';")).toEqual([
      expect.stringContaining("'lifecycle' may not import from 'store'"),
    ]);
    expect(lint('./pipeline/x.ts', "export { a } from '../api/app.js';")).toHaveLength(1);
    expect(lint('./engine/x.ts', "const m = await import('../compiler/index.js');")).toHaveLength(1);
  });

  it('lets an import down the layers, within a room and to packages through', () => {
    expect(lint('./store/x.ts', "import { a } from '../lifecycle/changes.js';")).toEqual([]);
    expect(lint('./runner/backends/local/x.ts', "import { a } from '../../driver.js';")).toEqual([]);
    expect(lint('./model/x.ts', "import { z } from 'zod';")).toEqual([]);
  });

  it('refuses a room nobody placed', () => {
    expect(lint('./newroom/x.ts', "import { a } from '../model/json.js';")).toEqual([
      expect.stringContaining("'newroom' is not a room"),
    ]);
  });

  it('names only rooms that are placed themselves', () => {
    for (const allowed of Object.values(LAYERS)) for (const room of allowed) expect(LAYERS).toHaveProperty([room]);
  });
});
