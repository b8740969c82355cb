import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { decodePage, encodePage } from './page-codec.js';
import type { Page, PageStore } from './row-log.js';

// A row log's sealed pages in a file of their own (row-log.ts), in the engine's spill directory
// (a pipeline's storage: EngineOptions.spillDir, under which each engine makes one of its own).
// The file is scratch: made at the log's first sealed page, removed when the log is cleared, with
// the engine's directory when the engine closes, and by a pipeline that starts (a process killed
// leaves its files behind). A page that cannot be
// written (a full disk) stays in memory: the table costs memory then, and loses nothing.

export class PageFile implements PageStore {
  private fd: number | undefined;
  private end = 0;
  /** Pages kept in memory because writing them failed. */
  unwritten = 0;

  constructor(private readonly path: string) {}

  put(page: Page): () => Page {
    const bytes = encodePage(page);
    const at = this.end;
    try {
      this.fd ??= openSync(this.path, 'w+');
      for (let done = 0; done < bytes.length;) done += writeSync(this.fd, bytes, done, bytes.length - done, at + done);
    } catch {
      this.unwritten += 1;
      return kept(page);
    }
    this.end += bytes.length;
    return this.reader(at, bytes.length);
  }

  /**
   * Reads a page back. Made apart from put: a closure there would share put's scope, and keep the
   * page and its bytes alive, which is what writing them out was for.
   */
  private reader(at: number, length: number): () => Page {
    const { fd, path } = this;
    return () => {
      const back = Buffer.allocUnsafe(length);
      for (let done = 0; done < length;) {
        const n = readSync(fd!, back, done, length - done, at + done);
        if (n === 0) throw new Error(`internal: spill file ${path} ends before its page`);
        done += n;
      }
      return decodePage(back);
    };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.end = 0;
    rmSync(this.path, { force: true });
  }
}

const kept = (page: Page) => () => page;

/** A directory of an engine's own under `dir` (undefined: none), which its close removes. */
export const ownSpillDir = (dir: string | undefined): string | undefined => dir && join(dir, randomUUID());

/** Removes an engine's own spill directory (its shard threads ended: nothing writes there any more). */
export function removeSpillDir(dir: string | undefined): void {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
}

/** A PageStore factory for row logs whose pages go to files under `dir` (made at the first). */
export function spillPages(dir: string): () => PageStore {
  return () => {
    try {
      mkdirSync(dir, { recursive: true });
    } catch {
      // The file's open fails too, and its pages stay in memory (PageFile.put).
    }
    return new PageFile(join(dir, `${randomUUID()}.pages`));
  };
}
