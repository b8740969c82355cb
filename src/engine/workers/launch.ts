import type { Worker } from 'node:worker_threads';
import { startWorker } from '../host/entry.js';
import { STEP_THREAD_LIMITS } from '../host/heap.js';
import { READY, ShardExited, type ShardWorkerData } from './protocol.js';

// Starting a shard worker (shard-worker.ts) and knowing when it is ready, or that it ended first.

/** Starts the thread of one shard (a test starts a worker of its own making). */
export type LaunchShard = (data: ShardWorkerData) => Worker;
export const launchShard: LaunchShard = (data) =>
  startWorker('../workers/shard-worker', { workerData: data, resourceLimits: STEP_THREAD_LIMITS });

/** Resolves when the shard worker says it is ready; rejects with ShardExited when it ends first. */
export function ready(worker: Worker, shard: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let failure: unknown;
    const done = () => {
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      worker.unref();
    };
    const onMessage = (m: unknown) => {
      if (m !== READY) return;
      done();
      resolve();
    };
    const onError = (error: unknown) => (failure = error);
    const onExit = () => {
      done();
      reject(new ShardExited(shard, { cause: failure }));
    };
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
  });
}
