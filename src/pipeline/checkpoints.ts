import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SvcError } from '../model/errors.js';
import { JsonValue } from '../model/json.js';

// Checkpoints in the pipeline's storage directory: one JSON file each under `checkpoints/`, written
// to a temporary name and renamed, so a reader (or a restart after a crash mid-write) never sees
// half a checkpoint. Names sort by creation time, so the latest is the last name. Only the newest
// few are kept: a resume needs the latest, the older ones are a fallback should the latest be
// unreadable; keeping every one made a long-running pipeline's disk and status grow without bound.

export const Checkpoint = z.object({
  id: z.string(),
  created_at: z.string(),
  program_checksum: z.string(),
  /** NOW() of the pipeline when the checkpoint was taken (the journaled clock), epoch ms. */
  now_ms: z.number(),
  tables: z.record(z.string(), z.array(JsonValue)),
  /** The views' kept state and the input buffered for the next step (the engine's, src/engine/state.ts). */
  views: z.record(z.string(), z.array(JsonValue)).optional(),
  staged: z
    .record(z.string(), z.array(z.object({ weight: z.number(), row: z.record(z.string(), JsonValue) })))
    .optional(),
  /** Each input connector's position (src/connectors): where its input resumes, by endpoint name. */
  connectors: z.record(z.string(), JsonValue).optional(),
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/** What /status lists about each checkpoint (not its rows). */
export interface CheckpointSummary {
  id: string;
  created_at: string;
  program_checksum: string;
  rows: number;
}

const summary = (c: Checkpoint): CheckpointSummary => ({
  id: c.id,
  created_at: c.created_at,
  program_checksum: c.program_checksum,
  rows: Object.values(c.tables).reduce((n, rows) => n + rows.length, 0),
});

const NAME = /^(\d{13})-([0-9a-f-]{36})\.json$/;

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
    `the checkpoint needs ${neededBytes} bytes of storage with the ones kept, more than dev_tweaks.storage_mb_max allows (${maxBytes} bytes)`,
    { field: 'runtime_config.dev_tweaks.storage_mb_max', needed_bytes: neededBytes, max_bytes: maxBytes },
  );

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
    let latest: Checkpoint | undefined;
    const unreadable: string[] = [];
    for (const name of names) {
      if (name.endsWith('.tmp')) {
        await rm(join(this.dir, name), { force: true });
        continue;
      }
      const stamp = NAME.exec(name)?.[1];
      if (stamp === undefined) continue;
      this.last = Math.max(this.last, Number(stamp));
      let parsed: ReturnType<typeof Checkpoint.safeParse> | undefined;
      let text = '';
      try {
        text = await readFile(join(this.dir, name), 'utf8');
        parsed = Checkpoint.safeParse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) {
        unreadable.push(name);
        continue;
      }
      latest = parsed.data;
      this.known.push({ file: name, summary: summary(parsed.data), bytes: Buffer.byteLength(text) });
    }
    await this.prune();
    return { latest, unreadable };
  }

  summaries(): CheckpointSummary[] {
    return this.known.map((k) => k.summary);
  }

  /** Removes the oldest checkpoints beyond `keep`; the newest is never removed. */
  private async prune(): Promise<void> {
    const excess = this.known.length - Math.max(1, this.keep);
    if (excess <= 0) return;
    const gone = this.known.splice(0, excess);
    for (const k of gone) await rm(join(this.dir, k.file), { force: true });
  }

  async write(content: Omit<Checkpoint, 'id' | 'created_at'>): Promise<CheckpointSummary> {
    // Strictly increasing millisecond stamps keep the name order the creation order.
    const stamp = Math.max(Date.now(), this.last + 1);
    this.last = stamp;
    const id = randomUUID();
    const checkpoint: Checkpoint = { id, created_at: new Date(stamp).toISOString(), ...content };
    const text = JSON.stringify(checkpoint);
    const bytes = Buffer.byteLength(text);
    if (this.maxBytes !== undefined) {
      // What storage holds once this one is written and the oldest pruned: the newest keep − 1 and it.
      const others = this.keep > 1 ? this.known.slice(-(this.keep - 1)) : [];
      const needed = others.reduce((n, k) => n + k.bytes, bytes);
      if (needed > this.maxBytes) throw storageFull(needed, this.maxBytes);
    }
    await mkdir(this.dir, { recursive: true });
    const file = `${String(stamp).padStart(13, '0')}-${id}.json`;
    const path = join(this.dir, file);
    const tmp = `${path}.${randomUUID()}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, path);
    const written = summary(checkpoint);
    this.known.push({ file, summary: written, bytes });
    await this.prune();
    return written;
  }
}
