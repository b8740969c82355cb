import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSdkScript, SDK_VERSION, sdkPython } from '../support/python-sdk.js';
import { startManagerClient } from '../support/svc-manager.js';
import type { SvcProcess } from '../support/svc-process.js';

// Wire compatibility (issue 17): the ecosystem's Python SDK from PyPI, pinned, drives the lifecycle
// against a real `svc manager` (test/python/lifecycle.py): its default runtime_config with members
// newer than the seed, program_info read without defaults, start/pause/resume/stop, start paused,
// clear, delete, the newer duration and size spellings, and a program that does not compile.
// test/python/data.py: the data calls (input_json, listen, query, wait_for_idle, checkpoint);
// test/python/completion.py: wait_for_completion and a connector's completion token.
// test/python/compat.py (issue 30): the established SQL dialect, input_pandas with datetimes, listen's
// chunks, metrics (text and JSON), checkpoints, validate_program, the support bundle, and
// wait_for_idle on a pipeline fed only by a connector. test/python/records.py: the record's members per
// selector (unset ones None, not AttributeError), the counters a metadata edit leaves alone, the
// cluster health, 501 for the calls svc does not serve, a refused json_flavor, and MAP types.

const procs: SvcProcess[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Runs one of test/python's scripts against a fresh `svc manager`; each step's record by name. Every
 * view of every program the script runs is kept by the native engine (issue 28): its `maintenance`
 * steps read /stats while the pipeline runs, and there is at least one.
 */
async function runAgainstManager(script: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-sdk-'));
  dirs.push(dataDir);
  const m = await startManagerClient(dataDir, procs);
  const r = await runSdkScript(script, { SVC_URL: m.url });
  expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
  const maintenance = r.steps.filter((s) => String(s.step).startsWith('maintenance'));
  expect(maintenance.length).toBeGreaterThan(0);
  for (const { views } of maintenance) {
    const kept = Object.values(views as Record<string, string>);
    expect(kept.length).toBeGreaterThan(0);
    expect(new Set(kept), JSON.stringify(views)).toEqual(new Set(['native']));
  }
  return (name: string) => r.steps.find((s) => s.step === name);
}

describe(`the Python SDK (feldera ${SDK_VERSION} from PyPI) against svc manager`, { timeout: 600_000 }, () => {
  beforeAll(async () => {
    // First run on a machine: python3 -m venv + pip install (minutes); then the cached venv.
    await sdkPython();
  }, 900_000);

  it('drives the whole lifecycle', async () => {
    const step = await runAgainstManager('lifecycle.py');

    expect(step('created')).toMatchObject({
      status: 'STOPPED',
      program_status: 'Success',
      tables: [['t', false]],
      views: [['v', false]],
      volume_attributes_class_kept: true,
    });
    expect(step('started')).toMatchObject({ status: 'RUNNING' });
    expect(step('paused')).toMatchObject({ status: 'PAUSED' });
    expect(step('resumed')).toMatchObject({ status: 'RUNNING' });
    expect(step('stopped')).toMatchObject({ status: 'STOPPED', storage: 'INUSE' });
    expect(step('started_paused')).toMatchObject({ status: 'PAUSED' });
    expect(step('stopped_again')).toMatchObject({ status: 'STOPPED' });
    expect(step('cleared')).toMatchObject({ storage: 'CLEARED' });
    expect(step('deleted')).toMatchObject({ gone: true });
    expect(step('newer_spellings')).toMatchObject({
      provisioning_timeout_secs: 120,
      max_rss_mb: 2148,
      clock_resolution_usecs: 100_000,
      checkpoint_interval_secs: 30,
      memory_mb_max: 4295,
      read_back: '120s',
    });
    expect(step('failing_program')).toMatchObject({ raised: true });
    expect(String(step('failing_program')?.['message'])).toContain('sdk-bad failed to compile');
    expect(step('failing_status')).toMatchObject({ program_status: 'SqlError' });
  });

  it('waits for completion of a pipeline whose only input (datagen with a limit) ends', async () => {
    const step = await runAgainstManager('completion.py');
    expect(step('completed')).toMatchObject({ complete: true });
    // increment: k = 0 … 249.
    expect(step('queried')).toMatchObject({ rows: [{ n: 250, total: (249 * 250) / 2 }] });
    // The connector's completion token, as the SDK asks for it and waits on it.
    expect(step('token')).toMatchObject({ status: 'complete' });
    expect(step('unknown_connector')).toMatchObject({
      raised: true,
      status: 404,
      error_code: 'UnknownConnector',
      message: expect.stringContaining('no input connector nope of table g'),
    });
    expect(step('done')).toBeDefined();
  });

  it('pushes, listens, queries, waits for idle and checkpoints', async () => {
    const step = await runAgainstManager('data.py');
    // 'b' was inserted and then deleted: the view holds 'a' only, and the stream's changes net to it.
    expect(step('queried')).toMatchObject({ rows: [{ s: 'a', n: 2 }] });
    expect(step('ids')).toMatchObject({ ids: ['9007199254740993', '9223372036854775807'] });
    expect(step('listened')).toMatchObject({ net: [['a', 2, 1]] });
    expect(step('checkpointed')?.['sequence_number']).toEqual(expect.any(Number));
    expect(step('done')).toBeDefined();
  });

  it('the second round: dialect, pandas, metrics, checkpoints, validate_program, support bundle, idle on connectors', async () => {
    const step = await runAgainstManager('compat.py');
    expect(step('validated')).toMatchObject({ result: ['Success'], bad: ['SqlError'] });
    expect(step('queried')).toMatchObject({
      rows: [
        { id: 1, x2: 3, ts: '2024-03-01 12:34:56.789', d: '2024-03-01', Label: 'a' },
        { id: 2, x2: '4.5', ts: '2024-03-02 00:00:00', d: '2024-03-02', Label: 'b' }, // a Decimal, printed
      ],
    });
    // The SDK typed the stream's columns by program_info's type names (DOUBLE, TIMESTAMP).
    expect(step('listened')).toMatchObject({ rows: 2, x2: [3, 4.5], ts_dtype: 'datetime64[ns]' });
    expect(step('metrics')).toMatchObject({ is_text: true, has_processed: true });
    expect(step('metrics_json')?.['names']).toContain('records_processed_total');
    expect(step('checkpoints')).toMatchObject({ count: 1 });
    expect(step('bundle')?.['files']).toEqual(
      expect.arrayContaining(['pipeline.json', 'stats.json', 'metrics.txt', 'logs.txt']),
    );
    expect(step('idle')).toMatchObject({ n: 300, total_input_records: 300, total_processed_records: 300 });
    expect(step('done')).toBeDefined();
  });

  it('records, counters, health, calls not served, refused flavors and MAP types as the SDK sees them', async () => {
    const step = await runAgainstManager('records.py');
    expect(step('unset')).toMatchObject({
      deployment_error: null,
      errors: [],
      storage_status_details: null,
      bootstrap_policy: null,
    });
    const members = step('members') as unknown as { status: string[]; all: string[] };
    const heavy = [
      'program_code',
      'program_error',
      'program_info',
      'runtime_config',
      'udf_rust',
      'udf_toml',
      'deployment_resources_status_details',
    ];
    expect(members.all).toEqual(expect.arrayContaining([...heavy, 'deployment_error', 'bootstrap_policy']));
    expect(members.status).toEqual(members.all.filter((k) => !heavy.includes(k)));
    const map = {
      type: 'MAP',
      key: { type: 'VARCHAR', nullable: false },
      value: { type: 'INTEGER', nullable: true },
    };
    expect(step('map')).toMatchObject({ table: map, view: map });
    const edit = step('metadata_edit') as unknown as { before: number[]; after: number[] };
    expect(edit.after).toEqual(edit.before);
    expect(step('health')).toMatchObject({ all_healthy: true });
    expect(step('json_flavor')).toMatchObject({
      refused: { status: 400, message: expect.stringContaining("json_flavor: 'snowflake' is not a flavor svc reads") },
    });
    const notServed = step('not_served') as unknown as Record<string, { status: number; error_code: string }>;
    for (const call of ['transaction', 'rebalance', 'sync'])
      expect(notServed[call], call).toMatchObject({ status: 501, error_code: 'NotImplemented' });
    expect(step('done')).toBeDefined();
  });
});
