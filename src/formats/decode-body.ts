import type { ColumnInfo } from '../engine/types.js';
import { BodyFormat } from '../model/data-queries.js';
import { decodeCsv } from './csv-decode.js';
import type { Decoded } from './decoded.js';
import { decodeJson } from './json-decode.js';

// An ingress body decoded in the format its request names: the ingress route's decoder, and the
// engine thread's BodyDecoder (engine/host/hosted.ts), which loads this module by its address so a
// body is parsed once, where its rows are converted, and not also on the thread that serves HTTP.

/** The URL the engine's thread imports this module by: the built file, or the source under tsx. */
export const BODY_DECODER_URL = import.meta.url;

export function decodeBody(text: string, options: unknown, columns: readonly ColumnInfo[]): Decoded {
  const format = BodyFormat.parse(options);
  return format.format === 'csv'
    ? decodeCsv(
        text,
        columns.map((c) => c.name),
      )
    : decodeJson(text, format.update_format, format.array, { columns, flavor: format.json_flavor });
}
