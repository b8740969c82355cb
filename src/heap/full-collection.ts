import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8's collector on call. `--expose-gc` set at run time (a worker thread refuses it as a
// command-line flag) gives each context made afterwards a `gc` function; a fresh context reaches it
// without putting `gc` on this thread's own global.

/**
 * `regular`: one full collection, for heap figures (what is alive). `last-resort`: V8's
 * CollectAllAvailableGarbage, collected until nothing more dies and compacted, and the freed pages
 * given back to the system. Measured on a thread with 35 MiB of dead objects in its old generation
 * (node 22): regular, RSS 169 → 164 MiB; last-resort, 172 → 57 MiB.
 */
export type CollectionFlavor = 'regular' | 'last-resort';

type GcExtension = (options?: { type: 'major'; execution: 'sync'; flavor: CollectionFlavor }) => void;

export function fullCollector(flavor: CollectionFlavor = 'regular'): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as GcExtension;
  return () => gc({ type: 'major', execution: 'sync', flavor });
}
