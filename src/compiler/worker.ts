import { randomUUID } from 'node:crypto';
import type { CompileJob } from '../store/compiler/claim.js';
import type { Claim } from '../store/compiler/store-result.js';
import type { CompilerIo } from './io.js';
import { runStage, type Stage, type StageDeps } from './jobs.js';

// The compiler loop: claims waiting pipelines up to `concurrency` at a time (stage 1 before
// stage 2), runs their stage and stores the result under the program_version it compiled. It
// wakes on NOTIFY and after each finished job; a slow poll is the safety net and the heartbeat.

export interface WorkerOptions extends StageDeps {
  io: CompilerIo;
  concurrency: number;
  /** Heartbeat and poll period. */
  pollMs: number;
  /** An instance that has not beaten for this long is dead and its claims go back to Pending. */
  aliveWithinSecs: number;
  instance?: string;
}

export interface Worker {
  readonly instance: string;
  close(): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<Worker> {
  const instance = opts.instance ?? randomUUID();
  const log = opts.log.child({ compiler_instance: instance });
  const inFlight = new Set<Promise<void>>();
  let givenUp: Claim[] = [];
  let closed = false;
  let claiming = false;
  let again = false;

  async function claim(): Promise<{ stage: Stage; job: CompileJob } | undefined> {
    const sql = await opts.io.claimPending(instance);
    if (sql) return { stage: 'sql', job: sql };
    const build = await opts.io.claimSqlCompiled(instance);
    return build && { stage: 'build', job: build };
  }

  async function run(stage: Stage, job: CompileJob): Promise<void> {
    const result = await runStage(stage, job, { ...opts, log });
    const owned: Claim = { id: job.id, program_version: job.program_version, instance };
    try {
      if (!(await opts.io.storeResult(owned, result)))
        log.info(
          { 'pipeline-id': job.id, program_version: job.program_version },
          'result dropped: the program changed during compilation',
        );
    } catch (error) {
      log.error(
        { err: error, 'pipeline-id': job.id },
        'could not store the compilation result; the claim goes back to Pending',
      );
      givenUp.push(owned);
    }
  }

  /** Claims and starts jobs until the limit is reached or nothing waits. One claimer at a time. */
  async function fill(): Promise<void> {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        while (!closed && inFlight.size < opts.concurrency) {
          const next = await claim();
          if (!next) break;
          const p: Promise<void> = run(next.stage, next.job).finally(() => {
            inFlight.delete(p);
            void kick();
          });
          inFlight.add(p);
        }
      } while (again && !closed);
    } finally {
      claiming = false;
    }
  }

  const kick = async (): Promise<void> => {
    if (closed) return;
    await fill().catch((error: unknown) =>
      log.error({ err: error }, 'claiming pipelines failed; retrying at the next poll'),
    );
  };

  async function tick(): Promise<void> {
    try {
      const lost = givenUp;
      givenUp = [];
      const reset = await opts.io.heartbeat(instance, opts.aliveWithinSecs, lost).catch((error: unknown) => {
        givenUp.push(...lost);
        throw error;
      });
      if (reset.length > 0) log.warn({ pipelines: reset }, 'claims of a stopped compiler put back to Pending');
    } catch (error) {
      log.error({ err: error }, 'compiler heartbeat failed');
    }
    await kick();
  }

  const unlisten = await opts.io.listen(() => void kick());
  await tick();
  const timer = setInterval(() => void tick(), opts.pollMs);
  log.info({ concurrency: opts.concurrency }, 'compiler started');

  return {
    instance,
    async close() {
      closed = true;
      clearInterval(timer);
      await unlisten();
      await Promise.allSettled([...inFlight]);
      await opts.io.release(instance).catch((error: unknown) => log.warn({ err: error }, 'could not release claims'));
    },
  };
}
