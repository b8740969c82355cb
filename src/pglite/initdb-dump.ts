import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { dropUnneededWal, NEEDED_WAL_SQL, type NeededWal } from './wal.js';

/** How an in-memory PGlite is made, beyond PGlite's defaults. */
export interface InMemoryOptions {
  /** Server settings (`-c name=value`) added after PGlite's own start parameters. */
  settings?: Readonly<Record<string, string>>;
  /**
   * A smaller template: 1 MiB WAL segments instead of 16 and no template0/template1 databases.
   * Every file of the cluster lives in the process's memory (the in-memory file system), as does
   * the dump while it loads: 38 MiB → 15 MiB per process, and less to copy at start. For a
   * database that never runs CREATE DATABASE (a pipeline's engine).
   */
  slim?: boolean;
}

/**
 * An in-memory PGlite costs seconds to create (it runs initdb); one loaded from a dump of a fresh
 * instance costs about a fifth of that (2.9 s → 0.5 s measured on this machine). The first process
 * to need one writes the dump to `dumpPath`; later ones load it. A missing or unreadable
 * dump only means the slow way, and the file is written anew.
 */
/** Server settings as PGlite's start parameters (`-c name=value` each). */
export function settingParams(settings: Readonly<Record<string, string>>): string[] {
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

const startParamsOf = (opts: InMemoryOptions): string[] | undefined =>
  opts.settings ? [...PGlite.defaultStartParams, ...settingParams(opts.settings)] : undefined;

/** An in-memory PGlite from a dump of another's files (PGlite's dumpDataDir), with these settings. */
export const openDump = (dump: Blob, opts: InMemoryOptions = {}): Promise<PGlite> =>
  PGlite.create({ loadDataDir: dump, startParams: startParamsOf(opts) });

export async function createInMemory(dumpPath: string | undefined, opts: InMemoryOptions = {}): Promise<PGlite> {
  const startParams = startParamsOf(opts);
  const fresh = async () => {
    const db = await PGlite.create({ startParams, ...(opts.slim && { initDbStartParams: ['--wal-segsize=1'] }) });
    if (opts.slim) await slimDown(db);
    return db;
  };
  if (!dumpPath) return fresh();
  const bytes = await readFile(dumpPath).catch(() => undefined);
  if (bytes) {
    try {
      return await openDump(new DumpBytes(bytes), opts);
    } catch {
      // A damaged dump: build a fresh instance and replace the file below.
    }
  }
  const db = await fresh();
  // Dumped before any use, so the dump is an untouched cluster.
  await saveDump(db, dumpPath).catch(() => undefined);
  return db;
}

/** PGlite works in the database `postgres`; the two template databases are never used. */
async function slimDown(db: PGlite): Promise<void> {
  // One statement per call: DROP DATABASE refuses to run in the implicit transaction of a batch.
  for (const name of ['template0', 'template1']) {
    await db.exec(`ALTER DATABASE ${name} WITH is_template false`);
    await db.exec(`DROP DATABASE ${name}`);
  }
  // A fresh segment, then a checkpoint whose redo record is in it: the dump keeps that one
  // segment alone (saveDump), with a whole segment of room, so the engine's first statements
  // do not have to create the next one (initdb leaves the insert position ~60 KiB before the end).
  await db.exec('SELECT pg_switch_wal()');
  await db.exec('CHECKPOINT');
}

/**
 * PGlite reads a dump only through `arrayBuffer()` (its loadTar), and `new Blob([bytes])`
 * cost two copies of the file on the way (into the Blob, out again): ~10 ms and ~18 MiB of peak
 * RSS per process measured. This Blob hands over the buffer the file was read into. The other
 * ways to read a Blob answer the same bytes, should a later PGlite use them.
 */
class DumpBytes extends Blob {
  readonly #file: Buffer;
  override readonly size: number;

  constructor(file: Buffer) {
    super([]);
    this.#file = file;
    this.size = file.length;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.#file;
    // readFile gives a file of this size a buffer of its own; a copy otherwise.
    if (buffer instanceof ArrayBuffer && byteOffset === 0 && byteLength === buffer.byteLength) return buffer;
    return new Uint8Array(this.#file).buffer;
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer());
  }

  override stream(): ReturnType<Blob['stream']> {
    return new Blob([this.#file]).stream();
  }

  override async text(): Promise<string> {
    return this.#file.toString('utf8');
  }

  override slice(start?: number, end?: number, contentType?: string): Blob {
    return new Blob([this.#file]).slice(start, end, contentType);
  }
}

/**
 * Without the WAL segments recovery never reads (src/pglite/wal.ts): the slim dump had
 * seven 1 MiB segments of which one is needed (15 → 9 MiB, so ~6 MiB less to read, untar and keep
 * in memory in every process loading it).
 */
async function saveDump(db: PGlite, path: string): Promise<void> {
  const [needed] = (await db.query<NeededWal>(NEEDED_WAL_SQL)).rows;
  const dump = new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer());
  await mkdir(dirname(path), { recursive: true });
  // Write then rename: a concurrent reader never loads half a file.
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, needed ? dropUnneededWal(dump, needed) : dump);
  await rename(tmp, path);
}
