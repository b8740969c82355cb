import { RUNNER_CHANNEL } from '../store/channels.js';
import type { Database } from '../store/database.js';
import type { Backend } from './backend.js';
import type { Reason } from './slot.js';

// Everything that makes the runner look at a pipeline, in one list (a controller's watches):
//
// 1. NOTIFY on RUNNER_CHANNEL (store/channels.ts): the trigger of migrations/001_pipelines.sql on
//    every insert, update and delete of a pipeline row, and the API when a pipeline's own runtime
//    status changed (wakeRunner). The row is read again.
// 2. The backend (Backend.onChange): local: a process exited, announced it is up, or its start slot
//    came free; Kubernetes: an informer event on the pipeline's StatefulSet, pod, PVC or companions,
//    and the informers' periodic resync.
// 3. The safety-net poll of pipelines not at rest (driver.ts, `poll`), and
// 4. the back-off retry after a failed look (driver.ts, `schedule`).
//
// 1 and 2 are subscribed here; 3 and 4 are the driver's own timers.

export type Wake = (pipelineId: string, reason: Reason) => void;

/** Subscribes `wake` to the NOTIFYs and the backend's events; resolves to the unsubscribe. */
export async function watchPipelines(db: Database, backend: Backend, wake: Wake): Promise<() => Promise<void>> {
  const unlisten = await db.listen(RUNNER_CHANNEL, (id) => wake(id, { kind: 'notify' }));
  backend.onChange((id) => wake(id, { kind: 'backend' }));
  return unlisten;
}
