import { existsSync, watch } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

/** Long enough for one initdb on a busy machine; after that the others start anyway. */
const FIRST_START_WAIT_MS = 60_000;

/** Called by the one start that goes first, with a promise that settles when its process exits. */
export type Release = (exited: Promise<unknown>) => void;

/**
 * The engine's initdb dump is written by the first pipeline process that finds none. Pipelines started
 * together before it exists would each run initdb (seconds of CPU and ~600 MiB each): measured
 * with 50 started at once on 2 cores, load 41 and artifact fetches timing out after 30 s. So while
 * the dump is missing one process goes first, and the others wait until the file appears,
 * that process exits, or a minute passes.
 */
export class InitdbDumpGate {
  private first: Promise<void> | undefined;

  constructor(private readonly path: string) {}

  /** Resolves when a start may go ahead: with a Release for the one that goes first, else undefined. */
  async admit(): Promise<Release | undefined> {
    // A first process that died without writing the dump hands the turn to the next waiter.
    while (!existsSync(this.path) && this.first) await this.first;
    if (existsSync(this.path)) return undefined;
    let release: Release = () => undefined;
    const done = new Promise<void>((resolve) => {
      release = (exited) => {
        const written = this.appears();
        // The turn passes only once the watch is closed and its mkdir settled: nothing of
        // this start is left running in the background (a watcher, a timer, a directory made late).
        void Promise.race([written.promise, exited.then(noop, noop)])
          .then(() => written.cancel())
          .then(resolve);
      };
    });
    this.first = done.finally(() => {
      this.first = undefined;
    });
    return release;
  }

  /** The dump file appears (the rename of a finished dump: an event on its directory). */
  private appears(): { promise: Promise<void>; cancel(): Promise<void> } {
    const dir = dirname(this.path);
    let cancelled = false;
    let stop = noop;
    let appeared = noop;
    const promise = new Promise<void>((resolve) => {
      appeared = resolve;
    });
    const done = () => {
      stop();
      appeared();
    };
    const watching = mkdir(dir, { recursive: true })
      .then(() => {
        // Cancelled while the directory was being made: the caller has moved on, so no watch.
        if (cancelled) return;
        const watcher = watch(dir, (_event, file) => {
          if (file === basename(this.path) && existsSync(this.path)) done();
        });
        watcher.on('error', done);
        const timer = setTimeout(done, FIRST_START_WAIT_MS);
        stop = () => {
          watcher.close();
          clearTimeout(timer);
        };
        // Written between the caller's check and the watch.
        if (existsSync(this.path)) done();
      })
      .catch(done);
    const cancel = async () => {
      cancelled = true;
      stop();
      await watching;
      stop();
    };
    return { promise, cancel };
  }
}

function noop(): void {}
