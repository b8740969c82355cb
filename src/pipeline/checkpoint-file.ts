import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import type { DumpedPage, StateSection } from '../engine/dump.js';
import type { StatePage } from '../engine/state.js';
import { JsonValue } from '../model/json.js';
import { parseSpelled } from '../model/exact-json.js';

// One checkpoint file: JSON lines, so that neither writing nor reading ever holds the whole state.
//   {"svc_checkpoint":2,"id":…,"created_at":…,"program_checksum":…,"now_ms":…,"views":[…]}
//   {"section":"table"|"view"|"circuit"|"staged","name":…,"rows":[…]}   one line a page (src/engine/state.ts;
//                                                        a circuit page also says its "circuit" part)
//   {"end":{"rows":…,"connectors":{…}}}
// The last line is written only after every page, and the file is renamed into place only after it
// is on disk, so a file under its final name is whole. The input connectors' positions are in the
// last line because they are taken when the dump is queued, after the first line is written.
// Checkpoints of svc before this format are single JSON objects (`.json`); they are still read.

export const FORMAT_VERSION = 2;

const Head = z.object({
  svc_checkpoint: z.literal(FORMAT_VERSION),
  id: z.string(),
  created_at: z.string(),
  program_checksum: z.string(),
  /** NOW() of the pipeline when the checkpoint was taken (the journaled clock), epoch ms. */
  now_ms: z.number(),
  /** The views whose kept state the file holds. */
  views: z.array(z.string()),
});
export type Head = z.infer<typeof Head>;

const End = z.object({
  end: z.object({
    /** Rows of the tables (what /status lists). */
    rows: z.number().int().min(0),
    /** Each input connector's position (src/connectors): where its input resumes, by endpoint name. */
    connectors: z.record(z.string(), JsonValue).optional(),
    /** Of every byte before this line: a file changed on disk is found before it is resumed from. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
});
export type End = z.infer<typeof End>['end'];

// Rows came out of JSON.parse, so they are JSON values: only their container is checked here.
const Page = z.object({
  section: z.enum(['table', 'view', 'circuit', 'staged']),
  name: z.string(),
  /** A `circuit` page's part (src/engine/circuit-checkpoint.ts). */
  circuit: z
    .object({ shard: z.number().int().min(0), shards: z.number().int().min(1), version: z.number().int() })
    .optional(),
  rows: z.array(z.unknown()),
});

/** The checkpoint format of svc before JSON lines: one object holding everything. */
const Legacy = z.object({
  id: z.string(),
  created_at: z.string(),
  program_checksum: z.string(),
  now_ms: z.number(),
  tables: z.record(z.string(), z.array(JsonValue)),
  views: z.record(z.string(), z.array(JsonValue)).optional(),
  staged: z
    .record(z.string(), z.array(z.object({ weight: z.number(), row: z.record(z.string(), JsonValue) })))
    .optional(),
  connectors: z.record(z.string(), JsonValue).optional(),
});

/** What a checkpoint file says of itself without reading its pages. */
export interface FileMeta extends Omit<Head, 'svc_checkpoint'>, Omit<End, 'sha256'> {
  /** Absent in the files of earlier versions. */
  sha256?: string;
  /** The file's size. */
  bytes: number;
  /** How many of its first bytes `sha256` covers (all but the last line). */
  hashedBytes: number;
}

const pageLine = ({ section, name, circuit, json }: DumpedPage): string =>
  `${JSON.stringify({ section, name, ...(circuit && { circuit }) }).slice(0, -1)},"rows":${json}}\n`;

/** Writes the lines of one checkpoint to an open file, counting its bytes. */
export class LineWriter {
  bytes = 0;
  rows = 0;
  private readonly hash = createHash('sha256');
  constructor(private readonly file: FileHandle) {}

  private async line(text: string, hashed = true): Promise<void> {
    this.bytes += Buffer.byteLength(text);
    if (hashed) this.hash.update(text);
    await this.file.write(text);
  }
  head(head: Omit<Head, 'svc_checkpoint'>): Promise<void> {
    return this.line(`${JSON.stringify({ svc_checkpoint: FORMAT_VERSION, ...head })}\n`);
  }
  /** Counts first: a page over the storage budget is refused before it is written (see `before`). */
  async page(page: DumpedPage, before?: (bytes: number) => void): Promise<void> {
    const text = pageLine(page);
    before?.(this.bytes + Buffer.byteLength(text));
    if (page.section === 'table') this.rows += page.rows;
    await this.line(text);
  }
  end(connectors?: Record<string, JsonValue>): Promise<void> {
    const end = { rows: this.rows, ...(connectors && { connectors }), sha256: this.hash.digest('hex') };
    return this.line(`${JSON.stringify({ end })}\n`, false);
  }
}

/** The first and the last line of a file, read from its two ends, and its size. */
async function headAndTail(path: string): Promise<[string, string, number]> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const read = async (position: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await file.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead).toString('utf8');
    };
    let first = '';
    for (let n = 4096; ; n *= 4) {
      first = await read(0, Math.min(n, size));
      if (first.includes('\n') || n >= size) break;
    }
    let last = '';
    for (let n = 4096; ; n *= 4) {
      const text = await read(Math.max(0, size - n), Math.min(n, size));
      const lines = text.replace(/\n$/, '').split('\n');
      if (lines.length > 1 || n >= size) {
        last = lines.at(-1) ?? '';
        break;
      }
    }
    return [first.split('\n')[0] ?? '', last, size];
  } finally {
    await file.close();
  }
}

/** Reads what a checkpoint file says of itself; undefined when it is not a whole checkpoint. */
export async function readMeta(path: string): Promise<FileMeta | undefined> {
  try {
    if (path.endsWith('.json')) {
      const text = await readFile(path, 'utf8');
      const legacy = Legacy.parse(JSON.parse(text));
      const bytes = Buffer.byteLength(text);
      return {
        bytes,
        hashedBytes: bytes,
        id: legacy.id,
        created_at: legacy.created_at,
        program_checksum: legacy.program_checksum,
        now_ms: legacy.now_ms,
        views: Object.keys(legacy.views ?? {}),
        rows: Object.values(legacy.tables).reduce((n, rows) => n + rows.length, 0),
        ...(legacy.connectors && { connectors: legacy.connectors }),
      };
    }
    const [first, last, bytes] = await headAndTail(path);
    const { svc_checkpoint: _, ...head } = Head.parse(JSON.parse(first));
    const hashedBytes = bytes - Buffer.byteLength(last) - 1;
    return { ...head, ...End.parse(JSON.parse(last)).end, bytes, hashedBytes };
  } catch {
    return undefined;
  }
}

/**
 * Whether the bytes before the last line are the ones written (their SHA-256 is in the last line).
 * A file of an earlier version (`.json`) was checked whole by readMeta.
 */
export async function verify(path: string, meta: FileMeta): Promise<boolean> {
  if (path.endsWith('.json')) return true;
  const { sha256, hashedBytes } = meta;
  if (sha256 === undefined || hashedBytes < 0) return false;
  const hash = createHash('sha256');
  if (hashedBytes > 0)
    for await (const chunk of createReadStream(path, { end: hashedBytes - 1 })) hash.update(chunk as Buffer);
  return hash.digest('hex') === sha256;
}

/** The pages of a checkpoint file, read a line at a time. */
export async function* readPages(path: string): AsyncGenerator<StatePage> {
  if (path.endsWith('.json')) {
    const legacy = Legacy.parse(parseSpelled(await readFile(path, 'utf8')));
    const sections: [StateSection, Record<string, JsonValue[]>][] = [
      ['table', legacy.tables],
      ['view', legacy.views ?? {}],
      ['staged', (legacy.staged ?? {}) as Record<string, JsonValue[]>],
    ];
    for (const [section, byName] of sections)
      for (const [name, rows] of Object.entries(byName)) if (rows.length > 0) yield { section, name, rows };
    return;
  }
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (n === 1 || line.startsWith('{"end":') || line === '') continue;
    let parsed: unknown;
    try {
      parsed = parseSpelled(line);
    } catch {
      parsed = undefined;
    }
    const page = Page.safeParse(parsed);
    if (!page.success) throw new Error(`checkpoint ${path}: line ${n} is not a page of rows`);
    yield { ...page.data, rows: page.data.rows as JsonValue[] };
  }
}
