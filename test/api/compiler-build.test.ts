import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startCompiler } from '../../src/compiler/index.js';
import { silentLogger } from '../support/silent-logger.js';
import { BACKENDS, COMPILE_POLL, pipelineBody, startHarness, type Harness } from '../support/api-harness.js';

// Stage 2 ("build") through the real API and database: content-addressed artifacts, the cache,
// and the refusals of seed 2.3 (Rust UDFs, a foreign runtime_version).

const silent = () => silentLogger('compiler-server');

describe.each(BACKENDS)('compiler build stage (%s)', (backend) => {
  let h: Harness;
  let dataDir: string;
  let close: () => Promise<void>;
  let artifactUrl: string;

  beforeEach(async () => {
    h = await startHarness(backend);
    dataDir = await mkdtemp(join(tmpdir(), 'svc-build-'));
    const c = await startCompiler({
      db: h.db,
      log: silent(),
      dataDir,
      platformVersion: '0.1.0',
      artifactServer: { host: '127.0.0.1', port: 0 },
    });
    close = () => c.close();
    artifactUrl = c.artifactUrl ?? '';
  });
  afterEach(async () => {
    await close();
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const finished = async (name: string) => {
    await expect
      .poll(async () => (await h.request('GET', `/v0/pipelines/${name}`)).body.program_status, COMPILE_POLL)
      .toMatch(/^(Success|SqlError|RustError|SystemError)$/);
    return (await h.request('GET', `/v0/pipelines/${name}`)).body;
  };
  const artifacts = async () => (await readdir(join(dataDir, 'artifacts'))).filter((f) => f.endsWith('.json'));

  it('reuses the artifact of an identical program when cache is true, rebuilds when false', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('first'));
    const first = await finished('first');
    expect(first.program_status).toBe('Success');
    expect(first.program_error.rust_compilation.stdout).toMatch(/^built artifact [0-9a-f]{64} /);
    expect(await artifacts()).toHaveLength(1);

    await h.request('POST', '/v0/pipelines', pipelineBody('second'));
    const second = await finished('second');
    expect(second.program_error.rust_compilation.stdout).toMatch(/^reused cached artifact [0-9a-f]{64} /);

    await h.request('POST', '/v0/pipelines', pipelineBody('third', { program_config: { cache: false } }));
    const third = await finished('third');
    expect(third.program_error.rust_compilation.stdout).toMatch(/^built artifact /);
    expect(await artifacts()).toHaveLength(1);
  });

  it('serves the artifact and its program_info by checksum, and only with the right checksums', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('served'));
    const body = await finished('served');
    const [, source, integrity] =
      /artifact ([0-9a-f]{64}) \(integrity ([0-9a-f]{64})\)/.exec(body.program_error.rust_compilation.stdout) ?? [];
    const path = `${body.id}/${body.program_version}/${source}/${integrity}`;
    const binary = await fetch(`${artifactUrl}/binary/${path}`);
    expect(binary.status).toBe(200);
    const artifact = (await binary.json()) as { program_code: string; source_checksum: string };
    expect(artifact.program_code).toBe(pipelineBody('served').program_code);
    expect(artifact.source_checksum).toBe(source);
    const info = await fetch(`${artifactUrl}/program_info/${path}`);
    expect(await info.json()).toEqual(body.program_info);
    const wrong = await fetch(`${artifactUrl}/binary/${body.id}/1/${source}/${'0'.repeat(64)}`);
    expect(wrong.status).toBe(404);
    expect(((await wrong.json()) as { error_code: string }).error_code).toBe('ArtifactNotFound');
  });

  it('gives a different profile its own artifact', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('dev', { program_config: { profile: 'dev' } }));
    await h.request('POST', '/v0/pipelines', pipelineBody('opt', { program_config: { profile: 'optimized' } }));
    expect((await finished('dev')).program_status).toBe('Success');
    expect((await finished('opt')).program_status).toBe('Success');
    expect(await artifacts()).toHaveLength(2);
  });

  it('refuses Rust UDFs with a RustError that says why, keeping the SQL result', async () => {
    await h.request('POST', '/v0/pipelines', pipelineBody('rusty', { udf_rust: 'pub fn f() {}' }));
    const body = await finished('rusty');
    expect(body.program_status).toBe('RustError');
    expect(body.program_error.rust_compilation.stderr).toMatch(/Rust UDFs .* not supported by this runtime/);
    expect(body.program_error.sql_compilation).toEqual({ exit_code: 0, messages: [] });
  });

  it('refuses functions declared without a body (they would need Rust UDFs), listing them', async () => {
    const program_code =
      'CREATE FUNCTION score(x int) RETURNS int;\nCREATE TABLE t (x int);\nCREATE VIEW v AS SELECT score(x) FROM t;';
    await h.request('POST', '/v0/pipelines', pipelineBody('stubbed', { program_code }));
    const body = await finished('stubbed');
    expect(body.program_status).toBe('RustError');
    expect(body.program_info.udf_stubs).toContain('CREATE FUNCTION score(x int) RETURNS int;');
    expect(body.program_error.rust_compilation.stderr).toMatch(/not supported by this runtime[\s\S]*score/);
  });

  it('identical programs built at the same time all record a checksum that the server answers', async () => {
    const names = ['same-1', 'same-2', 'same-3', 'same-4'];
    await Promise.all(names.map((n) => h.request('POST', '/v0/pipelines', pipelineBody(n))));
    for (const n of names) expect((await finished(n)).program_status).toBe('Success');
    const rows = await h.db.query<{
      id: string;
      program_version: number;
      program_binary_source_checksum: string;
      program_binary_integrity_checksum: string;
    }>(
      "SELECT id, program_version, program_binary_source_checksum, program_binary_integrity_checksum FROM pipeline WHERE name LIKE 'same-%'",
    );
    expect(new Set(rows.map((r) => r.program_binary_integrity_checksum)).size).toBe(1);
    for (const r of rows) {
      const url = `${artifactUrl}/binary/${r.id}/${r.program_version}/${r.program_binary_source_checksum}/${r.program_binary_integrity_checksum}`;
      expect((await fetch(url)).status, url).toBe(200);
    }
  });

  it('a machine failure (the artifact store unusable) is a SystemError; an edit back to Pending clears it', async () => {
    // A real fault: a file stands where the artifact directory must be created.
    await writeFile(join(dataDir, 'artifacts'), 'not a directory');
    await h.request('POST', '/v0/pipelines', pipelineBody('broken-disk'));
    const failed = await finished('broken-disk');
    expect(failed.program_status).toBe('SystemError');
    expect(failed.program_error.system_error).toMatch(/EEXIST|ENOTDIR|artifacts/);
    await rm(join(dataDir, 'artifacts'));
    const edited = await h.request('PATCH', '/v0/pipelines/broken-disk', { program_code: 'CREATE TABLE u (y INT);' });
    expect(edited.body.program_status).toBe('Pending');
    expect(edited.body.program_error).not.toHaveProperty('system_error');
    expect((await finished('broken-disk')).program_status).toBe('Success');
  });

  it('refuses a runtime_version other than the platform version with a SystemError', async () => {
    await h.request(
      'POST',
      '/v0/pipelines',
      pipelineBody('other-runtime', { program_config: { runtime_version: '9.9.9' } }),
    );
    const body = await finished('other-runtime');
    expect(body.program_status).toBe('SystemError');
    expect(body.program_error.system_error).toMatch(/unstable feature 'runtime_version'.*not enabled/);
  });
});
