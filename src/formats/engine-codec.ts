import { jsonColumnNames } from '../engine/json-columns.js';
import type { ColumnInfo } from '../engine/types.js';
import { BodyFormat } from '../model/data-queries.js';
import { decodeCsv } from './csv-decode.js';
import type { Decoded } from './decoded.js';
import { decodeJson } from './json-decode.js';

// The wire formats on the engine's thread (its EngineCodec, engine/host/hosted.ts), which loads this
// module by its address: an ingress body decoded in the format its request names, parsed once where
// its rows are converted, and a step's changes written as the text egress sends, not parsed back
// and encoded again on the thread that serves HTTP.

/** The URL the engine's thread imports this module by: the built file, or the source under tsx. */
export const ENGINE_CODEC_URL = import.meta.url;

export { changesTexts } from './encode.js';
export { splitBody } from './split-body.js';

export function decodeBody(text: string, options: unknown, columns: readonly ColumnInfo[]): Decoded {
  const format = BodyFormat.parse(options);
  return format.format === 'csv'
    ? decodeCsv(
        text,
        columns.map((c) => c.name),
        jsonColumnNames(columns),
      )
    : decodeJson(text, format.update_format, format.array, { columns, flavor: format.json_flavor });
}
