import { parentPort, workerData } from 'node:worker_threads';
import type { DumpedPage, PageSizes } from '../dump.js';
import { startEngine } from '../open.js';
import type { StatePage } from '../state.js';
import type { Change } from '../types.js';
import { parseExact } from '../../model/exact-json.js';
import type {
  EngineCodec,
  EngineCounters,
  EngineWorkerData,
  HostedEngine,
  Loaded,
  SteppedWire,
  WireOutput,
} from './hosted.js';
import { Rpc } from './rpc.js';
import { collectWhenIdle } from '../../heap/idle-collection.js';
import { programStatements } from '../program.js';

// The engine's thread: it opens the engine at once (while the main thread fetches the program),
// loads the program when asked, and answers the main thread's calls (thread-engine.ts). Rows cross
// as JSON text, so numbers a double cannot hold keep their digits (model/exact-json).

const port = parentPort;
if (!port) throw new Error('engine-worker.ts runs as a worker thread');
const rpc = new Rpc(port);
const data = workerData as EngineWorkerData;
collectWhenIdle();

const blank = startEngine({
  initdbDump: data.initdbDump,
  incremental: data.incremental,
  native: data.native,
  timed: data.timed,
  workers: data.workers,
  codec: data.codec,
  spill: data.spill,
  onMaintenance: (view, maintenance, reason) => void rpc.call('maintenance', { view, maintenance, reason }),
});
blank.catch(() => undefined); // answered by `load`
/** The wire formats, loaded while the engine opens (its failure is answered by `ingestBody`, `step`). */
const codec: Promise<EngineCodec> | undefined =
  data.codec === undefined ? undefined : (import(data.codec) as Promise<EngineCodec>);
codec?.catch(() => undefined);

/** A view's changes as they cross: with the codec, as egress text too. */
const wireOutput = (view: string, changes: Change[], formats: EngineCodec | undefined): WireOutput =>
  formats
    ? { view, ...formats.changesTexts(changes), count: changes.length }
    : { view, changes: JSON.stringify(changes), count: changes.length };
let engine: HostedEngine | undefined;
const releases = new Map<number, () => void>();

const loaded = (): HostedEngine => {
  if (!engine) throw new Error('no program is loaded');
  return engine;
};
const counters = (): EngineCounters => ({
  buffered: engine?.bufferedRecords ?? 0,
  version: engine?.stateVersion ?? 0,
  pglite: engine?.pglite ?? { awake: true, wakes: 0 },
});

rpc.handle('load', async (programCode: string): Promise<Loaded> => {
  engine = await (await blank).load(programCode);
  const definitions = programStatements(programCode).flatMap((s) => (s.defines ? [s.sql] : []));
  return {
    relations: engine.relations(),
    definitions,
    tables: engine.tables,
    usesNow: engine.usesNow,
    counters: counters(),
  };
});
rpc.handle('ingest', async ({ table, changes }: { table: string; changes: string }) => {
  const result = await loaded().ingest(table, parseExact(changes) as Change[]);
  return { result, counters: counters() };
});
// Answers a BodyIngested and the counters (thread-engine.ts ingestBody).
rpc.handle('ingestBody', async ({ table, text, options }: { table: string; text: string; options: unknown }) => {
  if (!codec) throw new Error('this engine thread was started without a codec (the wire formats)');
  const formats = await codec;
  const engine = loaded();
  const relation = engine.resolve(table, 'table');
  if (!relation) throw new Error(`no table ${table}`);
  // Decoded in the engine's turn, on the shard threads too where it can be (ProgramEngine.ingestDecoding).
  const { result, decoded } = engine.ingestDecoding
    ? await engine.ingestDecoding(relation.name, text, options, formats)
    : await (async () => {
        const { changes, ...rest } = formats.decodeBody(text, options, relation.columns);
        return { result: await engine.ingest(relation.name, changes), decoded: rest };
      })();
  return { result, decoded, counters: counters() };
});
rpc.handle('step', async (): Promise<SteppedWire> => {
  const r = await loaded().step();
  const formats = await codec;
  const outputs = [...r.outputs].map(([view, changes]) => wireOutput(view, changes, formats));
  return { ...r, outputs, counters: counters() };
});
rpc.handle('watch', ({ id, view }: { id: number; view: string }) => {
  releases.set(id, loaded().watch(view).release);
});
rpc.handle('release', (id: number) => {
  releases.get(id)?.();
  releases.delete(id);
});
rpc.handle('snapshot', async (name: string) => JSON.stringify(await loaded().snapshot(name)));
rpc.handle('snapshotPages', ({ id, name, size }: { id: number; name: string; size: number }) =>
  loaded().snapshotPages(name, size, (rows) => rpc.call('snapshot.page', { id, rows: JSON.stringify(rows) })),
);
rpc.handle('setNow', (ms: number) => loaded().setNow(ms));
rpc.handle('rowCounts', () => loaded().rowCounts());
rpc.handle('circuitProfile', () => loaded().circuitProfile());
rpc.handle('dump', async ({ id, sizes }: { id: number; sizes?: PageSizes }) => {
  await loaded().dump((page: DumpedPage) => rpc.call('dump.page', { id, page }), sizes);
  return counters();
});
rpc.handle('restore', async ({ id, views, strict }: { id: number; views: string[]; strict: boolean }) => {
  async function* pages(): AsyncGenerator<StatePage> {
    for (;;) {
      const next = await rpc.call<(Omit<StatePage, 'rows'> & { rows: string }) | null>('restore.next', id);
      if (next === null) return;
      yield { ...next, rows: parseExact(next.rows) as StatePage['rows'] };
    }
  }
  const restored = await loaded().restore({ views, pages: pages() }, strict);
  return { restored, counters: counters() };
});
rpc.handle('close', async () => {
  if (engine) await engine.close();
  else await (await blank).close();
});
