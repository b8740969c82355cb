import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCompiler } from '../../src/compiler/index.js';
import { databaseIo, type CompilerIo } from '../../src/compiler/io.js';
import { createScratch } from '../../src/compiler/sql/scratch.js';
import { startWorker } from '../../src/compiler/worker.js';
import { createLogger } from '../../src/logging/logger.js';
import { ProgramInfo } from '../../src/model/program.js';
import { BACKENDS, COMPILE_POLL, pipelineBody, startHarness, type Harness } from '../support/api-harness.js';

// The compiler loop against the real API and database: statuses, the program_version guard,
// recovery of abandoned claims, the concurrency limit and the NOTIFY wake-up.

describe.each(BACKENDS)('compiler worker (%s)', (backend) => {
  let h: Harness;
  let dataDir: string;
  let lines: Record<string, unknown>[];
  const closers: (() => Promise<void>)[] = [];

  const logger = () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    return createLogger({ service: 'manager', json: true, level: 'info', destination });
  };

  const start = async (options: { pollMs?: number; concurrency?: number; aliveWithinSecs?: number } = {}) => {
    const c = await startCompiler({
      db: h.db,
      log: logger(),
      dataDir,
      aliveWithinSecs: 2,
      ...options,
    });
    closers.push(() => c.close());
    return c;
  };

  const startWith = async (io: CompilerIo, concurrency = 1) => {
    const scratch = createScratch();
    const worker = await startWorker({
      io,
      scratch,
      log: logger(),
      concurrency,
      pollMs: 60_000,
      aliveWithinSecs: 10,
      build: { dataDir, platformVersion: 'x', unstableFeatures: [] },
    });
    closers.push(async () => {
      await worker.close();
      await scratch.close();
    });
  };

  const statusOf = async (name: string): Promise<string> =>
    (await h.request('GET', `/v0/pipelines/${name}`)).body.program_status as string;

  beforeEach(async () => {
    h = await startHarness(backend);
    dataDir = await mkdtemp(join(tmpdir(), 'svc-compiler-'));
    lines = [];
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('compiles a program to Success with its program_info, and logs start and outcome', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('ok'));
    await start();
    await expect.poll(() => statusOf('ok'), COMPILE_POLL).toBe('Success');
    const body = (await h.request('GET', '/v0/pipelines/ok')).body;
    // Every relation carries `materialized` as served (the Python SDK reads it without a default),
    // checked on the wire, before the schema's own default could fill it in.
    for (const r of [...body.program_info.schema.inputs, ...body.program_info.schema.outputs])
      expect(r, JSON.stringify(r)).toHaveProperty('materialized', false);
    const info = ProgramInfo.parse(body.program_info);
    expect(info.schema.inputs.map((r) => r.name)).toEqual(['t']);
    expect(info.schema.outputs.map((r) => r.name)).toEqual(['v']);
    expect(body.program_error.sql_compilation).toEqual({ exit_code: 0, messages: [] });
    expect(body.program_error.rust_compilation.exit_code).toBe(0);
    const mine = lines.filter((l) => l['pipeline-name'] === 'ok');
    expect(mine.map((l) => (l['fields'] as { message: string }).message)).toEqual([
      'SQL compilation started',
      expect.stringMatching(/^SQL compilation finished: SqlCompiled in \d+ ms$/),
      'Build started',
      expect.stringMatching(/^Build finished: Success in \d+ ms$/),
    ]);
    expect(new Set(mine.map((l) => l['svc-service']))).toEqual(new Set(['compiler-server']));
    expect(mine[0]?.['pipeline-id']).toBe(body.id);
  });

  it('reports SQL errors with positions and clears program_info', async () => {
    await h.request(
      'POST',
      '/v0/pipelines',
      pipelineBody('bad', { program_code: 'CREATE TABLE t (x INT);\nCREATE VIEW v AS SELECT y FROM t;' }),
    );
    await start();
    await expect.poll(() => statusOf('bad'), COMPILE_POLL).toBe('SqlError');
    const body = (await h.request('GET', '/v0/pipelines/bad')).body;
    expect(body.program_info ?? null).toBeNull();
    expect(body.program_error.sql_compilation.exit_code).toBe(1);
    expect(body.program_error.sql_compilation.messages).toMatchObject([
      { start_line_number: 2, start_column: 25, error_type: 'undefined_column', warning: false },
    ]);
  });

  it('drops the result of a program edited during its compilation and compiles the new one', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('edited'));
    const real = databaseIo(h.db);
    let edits = 0;
    const io: CompilerIo = {
      ...real,
      async storeResult(claim, result) {
        if (edits === 0) {
          edits++;
          const patched = await h.request('PATCH', '/v0/pipelines/edited', {
            program_code: 'CREATE TABLE renamed (x INT);',
          });
          expect(patched.status).toBe(200);
        }
        return real.storeResult(claim, result);
      },
    };
    await startWith(io);
    await expect.poll(() => statusOf('edited'), COMPILE_POLL).toBe('Success');
    const body = (await h.request('GET', '/v0/pipelines/edited')).body;
    expect(body.program_info.schema.inputs.map((r: { name: string }) => r.name)).toEqual(['renamed']);
    expect(lines.some((l) => (l['fields'] as { message: string }).message.startsWith('result dropped'))).toBe(true);
  });

  it('puts claims of a dead compiler back to Pending and compiles them', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('crashed'));
    await h.db.query(
      `UPDATE pipeline SET program_status = 'CompilingSql', compiler_instance = 'dead' WHERE name = 'crashed'`,
    );
    await h.db.query(
      `INSERT INTO component_heartbeat (component, instance, last_seen) VALUES ('compiler', 'dead', clock_timestamp() - interval '1 hour')`,
    );
    await start();
    await expect.poll(() => statusOf('crashed'), COMPILE_POLL).toBe('Success');
  });

  it('leaves the claims of a live compiler alone', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('held'));
    await h.db.query(
      `UPDATE pipeline SET program_status = 'CompilingSql', compiler_instance = 'alive' WHERE name = 'held'`,
    );
    await h.db.query(`INSERT INTO component_heartbeat (component, instance) VALUES ('compiler', 'alive')`);
    await start({ aliveWithinSecs: 3600 });
    // The start already ran the reset once; a pipeline compiled after it proves the loop is running.
    await h.request('POST', '/v0/pipelines', pipelineBody('after'));
    await expect.poll(() => statusOf('after'), COMPILE_POLL).toBe('Success');
    expect(await statusOf('held')).toBe('CompilingSql');
  });

  it('compiles several pipelines, never more than the limit at once', async () => {
    const names = Array.from({ length: 8 }, (_, i) => `many-${i}`);
    for (const name of names) await h.request('POST', '/v0/pipelines', pipelineBody(name));
    const real = databaseIo(h.db);
    let running = 0;
    let most = 0;
    const claimed = <T>(job: T | undefined): T | undefined => {
      if (job) most = Math.max(most, ++running);
      return job;
    };
    await startWith(
      {
        ...real,
        claimPending: async (i) => claimed(await real.claimPending(i)),
        claimSqlCompiled: async (i) => claimed(await real.claimSqlCompiled(i)),
        async storeResult(claim, result) {
          const stored = await real.storeResult(claim, result);
          running--;
          return stored;
        },
      },
      3,
    );
    for (const name of names) await expect.poll(() => statusOf(name), COMPILE_POLL).toBe('Success');
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('wakes on the database notification, not the poll', async () => {
    await start({ pollMs: 600_000 });
    await h.request('POST', '/v0/pipelines', pipelineBody('woken'));
    await expect.poll(() => statusOf('woken'), COMPILE_POLL).toBe('Success');
  });
});
