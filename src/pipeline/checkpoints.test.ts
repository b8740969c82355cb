import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DumpedPage } from '../engine/dump.js';
import type { StatePage } from '../engine/state.js';
import { type Checkpoint, CheckpointStore } from './checkpoints.js';

type Emit = (page: DumpedPage) => Promise<void>;
/** A checkpoint of table t holding `rows`, as the engine's dump hands them over. */
const write = (store: CheckpointStore, n: number, rows: unknown[] = [n]) =>
  store.write({ program_checksum: 'c', now_ms: n, views: [] }, async (page: Emit) => {
    if (rows.length > 0) await page({ section: 'table', name: 't', rows: rows.length, json: JSON.stringify(rows) });
    return {};
  });
const pagesOf = async (c: Checkpoint | undefined): Promise<StatePage[]> => {
  const out: StatePage[] = [];
  for await (const p of c?.pages ?? []) out.push(p);
  return out;
};

describe('CheckpointStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-checkpoints-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Two checkpoints (now_ms 1 and 2, rows given); the path of the newer one. */
  async function twoCheckpoints(rows1?: unknown[], rows2?: unknown[]): Promise<string> {
    const store = new CheckpointStore(dir, 3);
    await store.open();
    await write(store, 1, rows1);
    await write(store, 2, rows2);
    return join(store.dir, (await readdir(store.dir)).sort().at(-1) ?? '');
  }

  it('keeps only the newest checkpoints on disk and in the summaries', async () => {
    const store = new CheckpointStore(dir, 3);
    await store.open();
    const written = [];
    for (let n = 0; n < 7; n++) written.push(await write(store, n));
    const files = (await readdir(store.dir)).sort();
    expect(files).toHaveLength(3);
    expect(store.summaries().map((s) => s.id)).toEqual(written.slice(-3).map((s) => s.id));
    expect(files.map((f) => f.slice(14, 50))).toEqual(written.slice(-3).map((s) => s.id));
  });

  it('reopens at the latest and prunes what an older version left beyond the bound', async () => {
    const many = new CheckpointStore(dir, 10);
    await many.open();
    for (let n = 0; n < 6; n++) await write(many, n);
    await writeFile(join(many.dir, 'leftover.json.123.tmp'), '{');
    const store = new CheckpointStore(dir, 2);
    const { latest, unreadable } = await store.open();
    expect(latest?.now_ms).toBe(5);
    expect(await pagesOf(latest)).toEqual([{ section: 'table', name: 't', rows: [5] }]);
    expect(unreadable).toEqual([]);
    expect(store.summaries()).toHaveLength(2);
    expect(await readdir(store.dir)).toHaveLength(2);
  });

  it('falls back to the previous checkpoint when the newest is unreadable', async () => {
    const path = await twoCheckpoints();
    const newest = basename(path);
    await writeFile(path, '{"half":');
    const again = new CheckpointStore(dir, 3);
    const { latest, unreadable } = await again.open();
    expect(latest?.now_ms).toBe(1);
    expect(unreadable).toEqual([newest]);
  });

  it('dev_tweaks.storage_mb_max: a checkpoint that would not fit with the kept ones fails with StorageFull', async () => {
    const big = (store: CheckpointStore, n: number) => write(store, n, ['x'.repeat(1000)]);
    // Room for two checkpoints of ~1.2 KB, not three: keep 3 needs the third to fail.
    const store = new CheckpointStore(dir, 3, 2_600);
    await store.open();
    await big(store, 1);
    await big(store, 2);
    await expect(big(store, 3)).rejects.toMatchObject({
      status: 507,
      errorCode: 'StorageFull',
      details: { field: 'runtime_config.dev_tweaks.storage_mb_max' },
    });
    // Nothing written, nothing lost: the two that fit are still there, on disk and in the status.
    expect(await readdir(store.dir)).toHaveLength(2);
    expect(store.summaries()).toHaveLength(2);
    // Reopened, the store counts what is on disk.
    const again = new CheckpointStore(dir, 3, 2_600);
    await again.open();
    await expect(big(again, 4)).rejects.toMatchObject({ errorCode: 'StorageFull' });
    // With one kept at a time, only the new one has to fit.
    const single = new CheckpointStore(dir, 1, 1_300);
    await single.open();
    await expect(big(single, 5)).resolves.toMatchObject({ rows: 1 });
  });

  it('writes pages as JSON lines and reads them back one at a time, with the positions of the last line', async () => {
    const store = new CheckpointStore(dir, 3);
    await store.open();
    const page = (section: DumpedPage['section'], name: string, rows: unknown[]): DumpedPage => ({
      section,
      name,
      rows: rows.length,
      json: JSON.stringify(rows),
    });
    const pages: DumpedPage[] = [
      page('table', 't', [{ k: 1 }, { k: 2 }]),
      page('table', 't', [{ k: 3 }]),
      page('table', 'u x', [{ s: 'a\nb' }]),
      page('view', 'v', [{ n: 3 }]),
      page('staged', 't', [{ weight: -1, row: { k: 1 } }]),
    ];
    const written = await store.write({ program_checksum: 'c', now_ms: 7, views: ['v'] }, async (emit) => {
      for (const p of pages) await emit(p);
      return { connectors: { 'kafka-in': { offsets: [4] } } };
    });
    expect(written.rows).toBe(4); // rows of tables, not of views or buffered input
    const [file] = await readdir(store.dir);
    expect(file).toMatch(/^\d{13}-[0-9a-f-]{36}\.jsonl$/);
    const lines = (await readFile(join(store.dir, file ?? ''), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({ svc_checkpoint: 2, id: written.id, views: ['v'] });
    expect(JSON.parse(lines[6] ?? '')).toEqual({
      end: { rows: 4, connectors: { 'kafka-in': { offsets: [4] } }, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });

    const { latest } = await new CheckpointStore(dir, 3).open();
    expect(latest).toMatchObject({ id: written.id, now_ms: 7, views: ['v'], rows: 4 });
    expect(latest?.connectors).toEqual({ 'kafka-in': { offsets: [4] } });
    expect(await pagesOf(latest)).toEqual(
      pages.map((p) => ({ section: p.section, name: p.name, rows: JSON.parse(p.json) as unknown })),
    );
  });

  it('a file without its last line is not a checkpoint: a write cut short is never resumed from', async () => {
    const path = await twoCheckpoints();
    const newest = basename(path);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.slice(0, text.lastIndexOf('{"end"')));
    const { latest, unreadable } = await new CheckpointStore(dir, 3).open();
    expect(latest?.now_ms).toBe(1);
    expect(unreadable).toEqual([newest]);
  });

  it('a file whose bytes changed on disk is passed over for the one before it', async () => {
    const path = await twoCheckpoints([{ k: 'aaaa' }], [{ k: 'bbbb' }]);
    const newest = basename(path);
    const text = await readFile(path, 'utf8');
    // Still JSON, still whole, one value changed: only the checksum can tell.
    await writeFile(path, text.replace('"bbbb"', '"bbbc"'));
    const again = new CheckpointStore(dir, 3);
    const { latest, unreadable } = await again.open();
    expect(latest?.now_ms).toBe(1);
    expect(await pagesOf(latest)).toEqual([{ section: 'table', name: 't', rows: [{ k: 'aaaa' }] }]);
    expect(unreadable).toEqual([newest]);
    expect(again.summaries()).toHaveLength(1);
  });

  it('writes a circuit page with its part, and reads it back so', async () => {
    const store = new CheckpointStore(dir, 3);
    await store.open();
    const circuit = { shard: 1, shards: 2, version: 1 };
    const entries = [[0, ['l', { i: '9007199254740993' }, [[{ n: '250', s: 2 }]], [1]]]];
    await store.write({ program_checksum: 'c', now_ms: 1, views: [] }, async (page: Emit) => {
      await page({ section: 'table', name: 't', rows: 1, json: '[{"k":1}]' });
      await page({ section: 'circuit', name: 'v', rows: 1, json: JSON.stringify(entries), circuit });
      return {};
    });
    const { latest } = await new CheckpointStore(dir, 3).open();
    expect(latest?.rows).toBe(1); // circuit entries are not rows of the tables
    expect(await pagesOf(latest)).toEqual([
      { section: 'table', name: 't', rows: [{ k: 1 }] },
      { section: 'circuit', name: 'v', circuit, rows: entries },
    ]);
  });

  it('reads the single-object checkpoints of earlier versions', async () => {
    const legacy = {
      id: '0b7c2a52-6a8d-4e53-9d3f-2d7f4a0e9c11',
      created_at: '2026-11-20T10:00:00.000Z',
      program_checksum: 'c',
      now_ms: 42,
      tables: { t: [{ k: 1 }, { k: 2 }], empty: [] },
      views: { v: [{ n: 2 }] },
      staged: { t: [{ weight: 1, row: { k: 3 } }] },
      connectors: { in: 5 },
    };
    await mkdir(join(dir, 'checkpoints'));
    await writeFile(join(dir, 'checkpoints', `1763632800000-${legacy.id}.json`), JSON.stringify(legacy));
    const store = new CheckpointStore(dir, 3);
    const { latest } = await store.open();
    expect(latest).toMatchObject({ id: legacy.id, now_ms: 42, rows: 2, views: ['v'], connectors: { in: 5 } });
    expect(await pagesOf(latest)).toEqual([
      { section: 'table', name: 't', rows: [{ k: 1 }, { k: 2 }] },
      { section: 'view', name: 'v', rows: [{ n: 2 }] },
      { section: 'staged', name: 't', rows: [{ weight: 1, row: { k: 3 } }] },
    ]);
    // The next one is written in the new format; the old one is kept as the fallback.
    await write(store, 43);
    expect((await readdir(store.dir)).sort().map((f) => f.split('.').at(-1))).toEqual(['json', 'jsonl']);
  });

  it('StorageFull part-way through a dump: the page over the budget is not written, nor is any file', async () => {
    const store = new CheckpointStore(dir, 1, 5_000);
    await store.open();
    let offered = 0;
    const failed = store.write({ program_checksum: 'c', now_ms: 1, views: [] }, async (page) => {
      for (let i = 0; i < 10; i++) {
        offered++;
        await page({ section: 'table', name: 't', rows: 1, json: JSON.stringify(['y'.repeat(1000)]) });
      }
      return {};
    });
    await expect(failed).rejects.toMatchObject({ status: 507, errorCode: 'StorageFull' });
    expect(offered).toBe(5); // four pages fit, the fifth is refused and the dump stops there
    expect(await readdir(store.dir)).toEqual([]);
    expect(store.summaries()).toEqual([]);
  });

  // A real full volume: a 64 KiB tmpfs (mounting needs root, as the suite's Docker does).
  it('a full volume: StorageFull; the older checkpoints make way, the newest is never lost', async () => {
    const volume = join(dir, 'volume');
    await mkdir(volume);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', volume]);
    try {
      const store = new CheckpointStore(volume, 3);
      await store.open();
      const rows = (kib: number) => Array.from({ length: kib }, () => 'z'.repeat(1000));
      const first = await write(store, 1, rows(22));
      const second = await write(store, 2, rows(22));
      // A third does not fit beside two: the oldest goes, the newest stays, and it is written.
      const third = await write(store, 3, rows(22));
      expect(store.summaries().map((c) => c.id)).toEqual([second.id, third.id]);
      expect(first.id).not.toBe(second.id);
      // One bigger than the volume: StorageFull naming the volume's error; the newest is intact.
      await expect(write(store, 4, rows(70))).rejects.toMatchObject({
        status: 507,
        errorCode: 'StorageFull',
        details: { error: 'ENOSPC' },
      });
      expect((await readdir(store.dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const { latest } = await new CheckpointStore(volume, 3).open();
      expect(latest?.id).toBe(third.id);
      expect((await pagesOf(latest))[0]?.rows).toHaveLength(22);
    } finally {
      execFileSync('umount', [volume]);
    }
  });
});
