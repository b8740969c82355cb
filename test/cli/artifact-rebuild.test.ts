import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/database.js';
import { openBackend } from '../support/api-harness.js';
import { message, startSvc, type SvcProcess } from '../support/svc-process.js';

// Issue 29: compiled programs outlive the compiler-server's data dir. A program compiled by one
// `svc compiler-server` is served by another with an empty data dir (a pod recreated with a fresh
// emptyDir, or a second replica behind the same Service), rebuilt from the pipeline's record.

const procs: SvcProcess[] = [];
let db: Database;
let databaseUrl: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const backend = await openBackend('postgres');
  db = backend.db;
  databaseUrl = backend.url ?? '';
  drop = backend.drop;
});
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.close();
  await drop?.();
});

async function serve(args: string[], ready: string): Promise<{ svc: SvcProcess; url: string }> {
  const svc = startSvc([...args, '--port', '0', '--database-url', databaseUrl]);
  procs.push(svc);
  const line = await svc.waitForLine((l) => message(l).startsWith(ready), 90_000);
  return { svc, url: String((line['fields'] as { url?: string }).url ?? '') };
}
const compilerServer = () =>
  serve(
    ['compiler-server', '--data-dir', mkdtempSync(join(tmpdir(), 'svc-compiler-'))],
    'svc compiler-server ready at',
  );

describe('compiled programs outlive the compiler-server', { timeout: 300_000 }, () => {
  it('a compiler-server with an empty data dir serves a program compiled by another, byte for byte', async () => {
    const api = await serve(['api-server'], 'svc manager ready at');
    const first = await compilerServer();
    const created = await fetch(`${api.url}/v0/pipelines`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'kept', program_code: 'CREATE TABLE t (x INT); CREATE VIEW v AS SELECT x FROM t;' }),
    });
    expect(created.status).toBe(201);
    const id = String(((await created.json()) as { id: string }).id);
    await expect
      .poll(
        async () =>
          ((await (await fetch(`${api.url}/v0/pipelines/kept`)).json()) as { program_status: string }).program_status,
        { timeout: 120_000, interval: 250 },
      )
      .toBe('Success');
    const [row] = await db.query<{ v: number; s: string; i: string }>(
      `SELECT program_version::int AS v, program_binary_source_checksum AS s, program_binary_integrity_checksum AS i
         FROM pipeline WHERE id = $1`,
      [id],
    );
    const path = `${id}/${row?.v}/${row?.s}/${row?.i}`;
    const urlOf = (svc: SvcProcess) =>
      String(
        (svc.lines.find((l) => message(l) === 'artifact server listening')?.['fields'] as { url?: string } | undefined)
          ?.url,
      );
    const fromFirst = await fetch(`${urlOf(first.svc)}/binary/${path}`);
    expect(fromFirst.status).toBe(200);
    const bytes = Buffer.from(await fromFirst.arrayBuffer());

    // A second replica, its data dir empty: the same bytes, rebuilt from the record.
    const second = await compilerServer();
    const fromSecond = await fetch(`${urlOf(second.svc)}/binary/${path}`);
    expect(fromSecond.status).toBe(200);
    const rebuilt = Buffer.from(await fromSecond.arrayBuffer());
    expect(createHash('sha256').update(rebuilt).digest('hex')).toBe(row?.i);
    expect(rebuilt.equals(bytes)).toBe(true);
    expect(second.svc.lines.some((l) => message(l).startsWith('rebuilt artifact'))).toBe(true);
    expect((await fetch(`${urlOf(second.svc)}/program_info/${path}`)).status).toBe(200);

    // The first one gone (its pod deleted): a third, empty too, still serves it.
    first.svc.child.kill('SIGKILL');
    const third = await compilerServer();
    expect((await fetch(`${urlOf(third.svc)}/binary/${path}`)).status).toBe(200);
    // An artifact no record names stays a 404.
    const unknown = await fetch(`${urlOf(third.svc)}/binary/${id}/${row?.v}/${'0'.repeat(64)}/${row?.i}`);
    expect(unknown.status).toBe(404);
  });
});
