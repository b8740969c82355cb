import type { HostedEngine } from '../engine/host/hosted.js';
import type { Restored } from '../engine/state.js';
import type { Checkpoint, CheckpointHead, CheckpointStore, CheckpointSummary, Positions } from './checkpoints.js';
import { counted, progress, type SayProgress } from './progress.js';

// The two moves between the engine and the checkpoint store, with progress said along the way: a
// large state takes minutes either way.

/** Wraps a checkpoint's dump so that the input connectors' positions that match it come along. */
export type WithPositions = (dump: () => Promise<void>) => Promise<Positions>;

export function writeCheckpoint(
  store: CheckpointStore,
  engine: HostedEngine,
  head: Omit<CheckpointHead, 'views'>,
  withPositions: WithPositions,
  say: SayProgress,
): Promise<CheckpointSummary> {
  const views = engine.relations().flatMap((r) => (r.kind === 'view' ? [r.name] : []));
  const writing = progress(say, 'writing a checkpoint');
  return store.write({ ...head, views }, (emit) =>
    withPositions(() =>
      engine.dump((page) => {
        writing.add(page.rows);
        return emit(page);
      }),
    ),
  );
}

/** Loads a checkpoint into the engine: `strict` for a replay, not for a bootstrap (see restoreState). */
export async function restoreCheckpoint(
  engine: HostedEngine,
  latest: Checkpoint,
  strict: boolean,
  say: SayProgress,
): Promise<Restored & { ms: number }> {
  const t0 = Date.now();
  const reading = progress(say, strict ? 'resuming from the checkpoint' : 'bootstrapping from the checkpoint');
  const restored = await engine.restore({ ...latest, pages: counted(latest.pages, reading) }, strict);
  return { ...restored, ms: Date.now() - t0 };
}

/** What a checkpoint holds: the engine's state version (HostedEngine.stateVersion) and NOW(). */
export interface Covered {
  version: number;
  nowMs: number;
}

/**
 * Whether an automatic checkpoint would hold anything the last one (written or resumed from) does
 * not: input or a step since, or a later NOW() when the resume reads it back (with now_offset only,
 * see startingNow). An idle pipeline otherwise rewrote its whole state every interval for nothing.
 */
export function checkpointDue(last: Covered | undefined, now: Covered, nowJournaled: boolean): boolean {
  if (!last || now.version !== last.version) return true;
  return nowJournaled && now.nowMs !== last.nowMs;
}
