import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProgramConfig } from '../../model/program-config.js';
import { ProgramInfo } from '../../model/program.js';
import type { ArtifactRecord } from '../../store/compiler/artifact-source.js';
import { buildArtifact } from './artifact.js';
import { readArtifact } from './read-artifact.js';
import { rebuildArtifact } from './rebuild.js';

// Issue 29: a compiler-server with an empty data dir (a recreated pod, a second replica) rebuilds a
// compiled program from the record, to the very bytes the pipeline was compiled to.

const INFO = ProgramInfo.parse({
  input_connectors: { t: [] },
  output_connectors: {},
  schema: {
    inputs: [{ name: 't', case_sensitive: false, materialized: false, fields: [], properties: {} }],
    outputs: [],
  },
  udf_stubs: '',
});
let built: string;
let empty: string;
beforeAll(async () => {
  [built, empty] = await Promise.all([mkdtemp(join(tmpdir(), 'svc-built-')), mkdtemp(join(tmpdir(), 'svc-empty-'))]);
});
afterAll(async () => {
  await Promise.all([built, empty].map((d) => rm(d, { recursive: true, force: true })));
});

async function compiled(programCode: string): Promise<{ record: ArtifactRecord; source: string; integrity: string }> {
  const program_config = compileProgramConfig({});
  const artifact = await buildArtifact(built, {
    program_code: programCode,
    udf_toml: '',
    program_info: INFO,
    program_config,
  });
  return {
    // As the database gives it back: program_info as JSON, the checksums the compiler stored.
    record: {
      program_code: programCode,
      udf_toml: '',
      program_config,
      program_info: JSON.parse(JSON.stringify(INFO)) as unknown,
      program_binary_source_checksum: artifact.source_checksum,
      program_binary_integrity_checksum: artifact.integrity_checksum,
    },
    source: artifact.source_checksum,
    integrity: artifact.integrity_checksum,
  };
}

describe('rebuildArtifact', () => {
  it('rebuilds into an empty data dir the same bytes, which then read back with their integrity', async () => {
    const { record, source, integrity } = await compiled('CREATE TABLE t (x INT);');
    expect((await readArtifact(empty, source, integrity)).ok).toBe(false);
    expect(await rebuildArtifact(empty, record, { source, integrity })).toEqual({ ok: true });
    const read = await readArtifact(empty, source, integrity);
    expect(read.ok).toBe(true);
    expect(await readFile(join(empty, 'artifacts', `${source}.json`))).toEqual(
      await readFile(join(built, 'artifacts', `${source}.json`)),
    );
  });

  it('refuses a pipeline compiled since to another program, an unknown one, and other bytes', async () => {
    const first = await compiled('CREATE TABLE t (x INT, y INT);');
    const since = await compiled('CREATE TABLE t (x INT, z INT);');
    const wanted = { source: first.source, integrity: first.integrity };
    expect(await rebuildArtifact(empty, since.record, wanted)).toMatchObject({ ok: false });
    expect(await rebuildArtifact(empty, undefined, wanted)).toEqual({
      ok: false,
      reason: 'no compiled pipeline with that id',
    });
    const wrong = { source: first.source, integrity: '0'.repeat(64) };
    expect(await rebuildArtifact(empty, first.record, wrong)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('gave other bytes'),
    });
  });
});
