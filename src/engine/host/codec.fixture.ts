import { isMainThread } from 'node:worker_threads';
import type { Change, ColumnInfo, DecodedBody } from '../types.js';

// A EngineCodec for ingest-body.test.ts (the wire formats' own is src/formats/engine-codec.ts, which
// the engine's room may not import): one JSON row object per line, a line that does not parse is a
// record error saying on which thread it was decoded; a step's changes as text, json_data marked.

export function decodeBody(text: string, options: unknown, columns: readonly ColumnInfo[]): DecodedBody {
  const out: DecodedBody = { changes: [], indexes: [], errors: [], records: 0 };
  const weight = (options as { weight?: number }).weight ?? 1;
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    out.records++;
    try {
      const row = JSON.parse(line) as Record<string, never>;
      out.changes.push({ weight, row: Object.fromEntries(columns.map((c) => [c.name, row[c.name] ?? null])) });
      out.indexes.push(index);
    } catch {
      out.errors.push({ index, message: `line ${index} decoded ${isMainThread ? 'on' : 'off'} the main thread` });
    }
  });
  return out;
}

export function changesTexts(changes: readonly Change[]): { changes: string; jsonData: string } {
  return { changes: JSON.stringify(changes), jsonData: JSON.stringify({ fixture: changes.length }) };
}

/** The lines cut into `parts` runs, as formats/split-body.ts cuts a body of lines. */
export function splitBody(text: string, _options: unknown, parts: number): string[] | undefined {
  const lines = text.split('\n');
  const size = Math.ceil(lines.length / parts);
  const out = Array.from({ length: parts }, (_, k) => lines.slice(k * size, (k + 1) * size).join('\n')).filter(
    (p) => p !== '',
  );
  return out.length > 1 ? out : undefined;
}
