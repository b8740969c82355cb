import type { SvcError } from '../model/errors.js';
import type { PipelineRow } from '../model/pipeline-row.js';

export type Counter = 'version' | 'program_version' | 'refresh_version';

/**
 * What a pure rule decided to write: column values, columns stamped with the transaction's clock
 * (the `*_since` timestamps), and counters to bump. The store executes it in one UPDATE.
 */
export interface RowChanges {
  set: Partial<{ [K in keyof PipelineRow]: unknown }>;
  stamp: ReadonlyArray<keyof PipelineRow | 'storage_status_since'>;
  bump: readonly Counter[];
}

export const noChanges = (): RowChanges => ({ set: {}, stamp: [], bump: [] });

export const isEmpty = (c: RowChanges): boolean =>
  Object.keys(c.set).length === 0 && c.stamp.length === 0 && c.bump.length === 0;

/** A rule's answer to a request: the changes to write, or the error to answer with (nothing written). */
export type Plan = { ok: true; changes: RowChanges } | { ok: false; error: SvcError };
