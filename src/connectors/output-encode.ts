// A view's changes as the records an output transport writes, one string each, in the connector's
// format: the egress encoders of src/formats (JSON insert_delete events, CSV lines with the weight),
// plus the JSON update formats `raw` (the row: inserts only) and `weighted` ({"weight", "data"}).
import { csvChanges, jsonChanges } from '../formats/encode.js';
import type { Change } from '../engine/types.js';
import type { Format } from './schema.js';

export function encodeRecords(
  format: Format,
  changes: readonly Change[],
  columns: readonly string[],
  jsonColumns: ReadonlySet<string> = new Set(),
): string[] {
  // One record a change, not the text split at newlines: a quoted field may hold a line break.
  if (format.name === 'csv') return changes.map((c) => csvChanges([c], columns, jsonColumns).slice(0, -1));
  switch (format.config.update_format) {
    case 'insert_delete': {
      const events = jsonChanges(changes).map((e) => JSON.stringify(e));
      return format.config.array ? [`[${events.join(',')}]`] : events;
    }
    case 'weighted': {
      const events = changes.map(({ weight, row }) => JSON.stringify({ weight, data: row }));
      return format.config.array ? [`[${events.join(',')}]`] : events;
    }
    case 'raw': {
      const rows = changes
        .filter((c) => c.weight > 0)
        .flatMap(({ weight, row }) => Array(weight).fill(JSON.stringify(row)) as string[]);
      return format.config.array ? [`[${rows.join(',')}]`] : rows;
    }
  }
}
