import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CheckpointStore } from './checkpoints.js';

const content = (n: number) => ({ program_checksum: 'c', now_ms: n, tables: { t: [n] } });

describe('CheckpointStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-checkpoints-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps only the newest checkpoints on disk and in the summaries', async () => {
    const store = new CheckpointStore(dir, 3);
    await store.open();
    const written = [];
    for (let n = 0; n < 7; n++) written.push(await store.write(content(n)));
    const files = (await readdir(store.dir)).sort();
    expect(files).toHaveLength(3);
    expect(store.summaries().map((s) => s.id)).toEqual(written.slice(-3).map((s) => s.id));
    expect(files.map((f) => f.slice(14, 50))).toEqual(written.slice(-3).map((s) => s.id));
  });

  it('reopens at the latest and prunes what an older version left beyond the bound', async () => {
    const many = new CheckpointStore(dir, 10);
    await many.open();
    for (let n = 0; n < 6; n++) await many.write(content(n));
    await writeFile(join(many.dir, 'leftover.json.123.tmp'), '{');
    const store = new CheckpointStore(dir, 2);
    const { latest, unreadable } = await store.open();
    expect(latest?.now_ms).toBe(5);
    expect(unreadable).toEqual([]);
    expect(store.summaries()).toHaveLength(2);
    expect(await readdir(store.dir)).toHaveLength(2);
  });

  it('falls back to the previous checkpoint when the newest is unreadable', async () => {
    const store = new CheckpointStore(dir, 3);
    await store.open();
    await store.write(content(1));
    await store.write(content(2));
    const newest = (await readdir(store.dir)).sort().at(-1) ?? '';
    await writeFile(join(store.dir, newest), '{"half":');
    const again = new CheckpointStore(dir, 3);
    const { latest, unreadable } = await again.open();
    expect(latest?.now_ms).toBe(1);
    expect(unreadable).toEqual([newest]);
  });

  it('dev_tweaks.storage_mb_max: a checkpoint that would not fit with the kept ones fails with StorageFull', async () => {
    const big = (n: number) => ({ program_checksum: 'c', now_ms: n, tables: { t: ['x'.repeat(1000)] } });
    // Room for two checkpoints of ~1.2 KB, not three: keep 3 needs the third to fail.
    const store = new CheckpointStore(dir, 3, 2_600);
    await store.open();
    await store.write(big(1));
    await store.write(big(2));
    await expect(store.write(big(3))).rejects.toMatchObject({
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
    await expect(again.write(big(4))).rejects.toMatchObject({ errorCode: 'StorageFull' });
    // With one kept at a time, only the new one has to fit.
    const single = new CheckpointStore(dir, 1, 1_300);
    await single.open();
    await expect(single.write(big(5))).resolves.toMatchObject({ rows: 1 });
  });
});
