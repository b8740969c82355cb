import type { Change } from '../engine/types.js';

/** A record of the request that could not be decoded: its position in the request and why. */
export interface RecordError {
  index: number;
  message: string;
}

/**
 * What a decoder made of one request body. `indexes[i]` is the request position of `changes[i]`, so
 * errors the engine reports against `changes` (types that do not fit) name the request's record.
 */
export interface Decoded {
  changes: Change[];
  indexes: number[];
  errors: RecordError[];
  /** Records seen in the request, good or bad. */
  records: number;
}

export function emptyDecoded(): Decoded {
  return { changes: [], indexes: [], errors: [], records: 0 };
}
