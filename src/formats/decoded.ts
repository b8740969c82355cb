import type { DecodedBody } from '../engine/types.js';

/** What a decoder made of one request body (the engine's DecodedBody: it may decode on its thread). */
export type Decoded = DecodedBody;
/** A record of the request that could not be decoded: its position in the request and why. */
export type RecordError = Decoded['errors'][number];

export function emptyDecoded(): Decoded {
  return { changes: [], indexes: [], errors: [], records: 0 };
}
