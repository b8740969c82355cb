import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DumpedPage } from '../engine/dump.js';
import type { StateSource } from '../engine/state.js';
import { SvcError } from '../model/errors.js';
import { type FileMeta, LineWriter, readMeta, readPages, verify } from './checkpoint-file.js';

// Checkpoints in the pipeline's storage directory: one file each under `checkpoints/` (JSON lines,
// src/pipeline/checkpoint-file.ts), written to a temporary name, flushed to disk and renamed, so a
// reader (or a restart after a crash, even of the machine) never sees half a checkpoint. Names sort
// by creation time, so the latest is the last name. Only the newest few are kept: a resume needs the
// latest, the older ones are a fallback should the latest be unreadable; keeping every one made a
// long-running pipeline's disk and status grow without bound.

/** A checkpoint on disk: what it says of itself, and its pages read when asked. */
export type Checkpoint = FileMeta & Pick<StateSource, 'pages'>;

/** What /status lists about each checkpoint (not its rows). */
export interface CheckpointSummary {
  id: string;
  created_at: string;
  program_checksum: string;
  rows: number;
}

const summary = (c: Pick<FileMeta, 'id' | 'created_at' | 'program_checksum' | 'rows'>): CheckpointSummary => ({
  id: c.id,
  created_at: c.created_at,
  program_checksum: c.program_checksum,
  rows: c.rows,
});

// `.json`: the single-object files of earlier versions, still read.
const NAME = /^(\d{13})-([0-9a-f-]{36})\.jsonl?$/;

/** How many checkpoints stay on disk (and in the status) after a write. */
export const CHECKPOINTS_KEPT = 3;

interface Known {
  file: string;
  summary: CheckpointSummary;
  bytes: number;
}

/** dev_tweaks.storage_mb_max is reached: the checkpoint is not written (seed 7, StorageFull). */
export const storageFull = (neededBytes: number, maxBytes: number): SvcError =>
  new SvcError(
    507,
    'StorageFull',
    `the checkpoint needs at least ${neededBytes} bytes of storage with the ones kept, more than dev_tweaks.storage_mb_max allows (${maxBytes} bytes)`,
    { field: 'runtime_config.dev_tweaks.storage_mb_max', needed_bytes: neededBytes, max_bytes: maxBytes },
  );

/** What a writer says of a checkpoint before its pages (the store adds its id and time). */
export type CheckpointHead = Pick<FileMeta, 'program_checksum' | 'now_ms' | 'views'>;
/** The input connectors' positions a checkpoint's dump matches (its last line). */
export type Positions = Pick<FileMeta, 'connectors'>;
type Body = (page: (page: DumpedPage) => Promise<void>) => Promise<Positions>;

const FULL_CODES = ['ENOSPC', 'EDQUOT'];
const isVolumeFull = (error: unknown): boolean =>
  error instanceof SvcError && FULL_CODES.includes(String(error.details?.['error']));

/** The volume itself is full (or over quota): StorageFull too, naming the directory. */
const volumeFull = (error: unknown, dir: string): SvcError | undefined => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined || !FULL_CODES.includes(code)) return undefined;
  return new SvcError(
    507,
    'StorageFull',
    `the storage volume is full: the checkpoint was not written to ${dir}`,
    {
      path: dir,
      error: code,
    },
    { cause: error },
  );
};

export class CheckpointStore {
  readonly dir: string;
  private last = 0;
  /** Summaries of what is on disk, oldest first, kept in memory: /status is polled, files can be large. */
  private known: Known[] = [];

  constructor(
    storagePath: string,
    private readonly keep = CHECKPOINTS_KEPT,
    /** dev_tweaks.storage_mb_max: what the kept checkpoints may take, in bytes. */
    private readonly maxBytes?: number,
  ) {
    this.dir = join(storagePath, 'checkpoints');
  }

  /**
   * Reads the directory at start-up: removes leftovers of writes a crash interrupted, remembers the
   * summaries and returns the latest checkpoint. An unreadable file is skipped and named.
   */
  async open(): Promise<{ latest: Checkpoint | undefined; unreadable: string[] }> {
    await mkdir(this.dir, { recursive: true });
    const names = (await readdir(this.dir)).sort();
    const unreadable: string[] = [];
    const metas = new Map<string, FileMeta>();
    for (const name of names) {
      if (name.endsWith('.tmp')) {
        await rm(join(this.dir, name), { force: true });
        continue;
      }
      const stamp = NAME.exec(name)?.[1];
      if (stamp === undefined) continue;
      this.last = Math.max(this.last, Number(stamp));
      const path = join(this.dir, name);
      const meta = await readMeta(path);
      if (!meta) {
        unreadable.push(name);
        continue;
      }
      metas.set(name, meta);
      this.known.push({ file: name, summary: summary(meta), bytes: meta.bytes });
    }
    // The latest is the newest whose bytes are as written; a changed one is named and passed over
    // (older ones are checked when they are needed).
    let latest: Checkpoint | undefined;
    for (const k of [...this.known].reverse()) {
      const path = join(this.dir, k.file);
      const meta = metas.get(k.file);
      if (meta && (await verify(path, meta))) {
        latest = { ...meta, pages: readPages(path) };
        break;
      }
      unreadable.push(k.file);
      this.known = this.known.filter((other) => other !== k);
    }
    await this.prune();
    return { latest, unreadable };
  }

  summaries(): CheckpointSummary[] {
    return this.known.map((k) => k.summary);
  }

  /** Bytes the kept checkpoints take: what the pipeline holds in its storage (/stats storage_bytes). */
  bytes(): number {
    return this.known.reduce((n, k) => n + k.bytes, 0);
  }

  /** Removes the oldest checkpoints beyond `keep`; the newest is never removed. */
  private async prune(keep = this.keep): Promise<void> {
    const excess = this.known.length - Math.max(1, keep);
    if (excess <= 0) return;
    const gone = this.known.splice(0, excess);
    for (const k of gone) await rm(join(this.dir, k.file), { force: true });
  }

  /**
   * Writes a checkpoint: `body` hands its pages to the writer (the engine's dump) and answers the
   * input connectors' positions. Over the storage budget, the page that would pass it is not written,
   * the file is removed and StorageFull thrown: the kept checkpoints are untouched.
   */
  async write(head: CheckpointHead, body: Body): Promise<CheckpointSummary> {
    try {
      return await this.attempt(head, body);
    } catch (error) {
      // A full volume: the older checkpoints make way (the newest stays, so a resume still has it)
      // and the dump runs once more. Without this, the store would stay full for good.
      if (!isVolumeFull(error) || this.known.length < 2) throw error;
      await this.prune(1);
      return this.attempt(head, body);
    }
  }

  private async attempt(head: CheckpointHead, body: Body): Promise<CheckpointSummary> {
    // Strictly increasing millisecond stamps keep the name order the creation order.
    const stamp = Math.max(Date.now(), this.last + 1);
    this.last = stamp;
    const id = randomUUID();
    const meta = { id, created_at: new Date(stamp).toISOString(), ...head };
    // What storage holds once this one is written and the oldest pruned: the newest keep − 1 and it.
    const others = (this.keep > 1 ? this.known.slice(-(this.keep - 1)) : []).reduce((n, k) => n + k.bytes, 0);
    const { maxBytes } = this;
    const budget =
      maxBytes === undefined
        ? undefined
        : (bytes: number) => {
            if (others + bytes > maxBytes) throw storageFull(others + bytes, maxBytes);
          };
    await mkdir(this.dir, { recursive: true });
    const file = `${String(stamp).padStart(13, '0')}-${id}.jsonl`;
    const path = join(this.dir, file);
    const tmp = `${path}.${randomUUID()}.tmp`;
    const handle = await open(tmp, 'w').catch((error: unknown) => {
      throw volumeFull(error, this.dir) ?? error;
    });
    const out = new LineWriter(handle);
    let end: Positions;
    try {
      await out.head(meta);
      end = await body((page) => out.page(page, budget));
      await out.end(end.connectors);
      budget?.(out.bytes);
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
      throw volumeFull(error, this.dir) ?? error;
    }
    await handle.close();
    await rename(tmp, path);
    await syncDirectory(this.dir);
    const written = summary({ ...meta, rows: out.rows });
    this.known.push({ file, summary: written, bytes: out.bytes });
    await this.prune();
    return written;
  }
}

/** A rename is on disk once its directory is. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
