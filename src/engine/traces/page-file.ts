import { randomUUID } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { decodePage, encodePage } from './page-codec.js';
import type { Page, PageStore } from './row-log.js';

// A row log's sealed pages in a file of their own (row-log.ts), in the engine's spill directory.
// A pipeline has one when `runtime_config.storage` is set: `<storage>/spill`, under which each
// engine makes a directory of its own. As the seed's `storage.min_storage_bytes` says of a batch,
// pages are written once that many bytes of them wait (default 10,048,576; 0 writes each page as it
// is sealed); until then they wait in memory, encoded. The file is scratch, not state: made at the
// log's first write, removed when the log is cleared, with the engine's directory when the engine
// closes, and by a pipeline that starts (a process killed leaves its files behind). A page that
// cannot be written (a full disk) waits in memory: the table costs memory then, and loses nothing.

/** Where an engine's scratch files go, and how many bytes of pages wait before they are written. */
export interface Spill {
  dir: string;
  minBytes: number;
}

/** A page: its bytes while they wait, else where they are in the file. */
interface Slot {
  bytes: Uint8Array | undefined;
  at: number;
  length: number;
}

export class PageFile implements PageStore {
  /** Bytes written so far: the next page goes there. */
  private end = 0;
  private waiting: Slot[] = [];
  private waitingBytes = 0;

  constructor(
    private readonly path: string,
    private readonly minBytes: number,
  ) {}

  put(page: Page): () => Page {
    const bytes = encodePage(page);
    const slot: Slot = { bytes, at: -1, length: bytes.length };
    this.waiting.push(slot);
    this.waitingBytes += bytes.length;
    if (this.waitingBytes >= this.minBytes) this.write();
    return this.reader(slot);
  }

  /**
   * Writes the waiting pages; one that fails, and those after it, wait for the next try. The file
   * is open only meanwhile (and while a page is read back): no descriptor outlives the call, so a
   * shard thread that ends with its engine leaves none open on a file its engine has removed.
   */
  private write(): void {
    try {
      withFile(this.path, 'write', (fd) => {
        for (const slot of this.waiting) {
          const bytes = slot.bytes!;
          for (let done = 0; done < bytes.length;)
            done += writeSync(fd, bytes, done, bytes.length - done, this.end + done);
          slot.at = this.end;
          slot.bytes = undefined;
          this.end += bytes.length;
        }
      });
    } catch {
      // Kept below: what was written is on disk, the rest waits.
    }
    this.waiting = this.waiting.filter((s) => s.bytes !== undefined);
    this.waitingBytes = this.waiting.reduce((n, s) => n + s.length, 0);
  }

  /**
   * Reads a page back. Made apart from put: a closure there would share put's scope, and keep the
   * page alive, which is what writing it out was for.
   */
  private reader(slot: Slot): () => Page {
    return () => {
      if (slot.bytes) return decodePage(slot.bytes);
      const back = Buffer.allocUnsafe(slot.length);
      withFile(this.path, 'read', (fd) => {
        for (let done = 0; done < slot.length;) {
          const n = readSync(fd, back, done, slot.length - done, slot.at + done);
          if (n === 0) throw new Error(`internal: spill file ${this.path} ends before its page`);
          done += n;
        }
      });
      return decodePage(back);
    };
  }

  close(): void {
    this.end = 0;
    this.waiting = [];
    this.waitingBytes = 0;
    rmSync(this.path, { force: true });
  }
}

/**
 * The file open for `use`: to write at the offsets given (created if missing; not O_APPEND, which
 * would put a page after what a failed write left), or to read.
 */
function withFile(path: string, mode: 'write' | 'read', use: (fd: number) => void): void {
  const fd = openSync(path, mode === 'write' ? constants.O_WRONLY | constants.O_CREAT : 'r');
  try {
    use(fd);
  } finally {
    closeSync(fd);
  }
}

/** A PageStore factory for row logs whose pages go to files under the spill directory. */
export function spillPages(spill: Spill): () => PageStore {
  return () => {
    try {
      mkdirSync(spill.dir, { recursive: true });
    } catch {
      // The file's open fails too, and its pages wait in memory (PageFile.write).
    }
    return new PageFile(join(spill.dir, `${randomUUID()}.pages`), spill.minBytes);
  };
}

/** The same spill with a directory of the engine's own under it (undefined: none), which its close removes. */
export const ownSpill = (spill: Spill | undefined): Spill | undefined =>
  spill && { ...spill, dir: join(spill.dir, randomUUID()) };

/** Removes an engine's own spill directory (its shard threads ended: nothing writes there any more). */
export function removeSpillDir(spill: Spill | undefined): void {
  if (spill !== undefined) rmSync(spill.dir, { recursive: true, force: true });
}
