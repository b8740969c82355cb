import { withClient } from './database.js';

// 10,000 pipelines with 10 KiB programs, fast: ONE pipeline is created through the real API (so its
// runtime_config and program_config are exactly what the API compiles and stores), then copied in
// SQL with new ids, names and programs. Row-by-row POSTs would take minutes and measure nothing.

export const PROGRAM_BYTES = 10 * 1024;
/** Stands for the pipeline's number in its program; same width as its replacement. */
const TOKEN = 'p00000';
const NAME_PREFIX = 'bench-';

export const pipelineName = (i: number): string => `${NAME_PREFIX}${String(i).padStart(5, '0')}`;

/** Deterministic pseudo-random numbers (mulberry32): the same program on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'order',
  'customer',
  'amount',
  'region',
  'sensor',
  'reading',
  'price',
  'ticker',
  'event',
  'session',
  'device',
  'latency',
  'account',
  'balance',
  'merchant',
  'country',
  'vendor',
  'shipment',
  'status',
  'quantity',
];
const TYPES = ['BIGINT', 'INT', 'VARCHAR', 'DECIMAL(12, 2)', 'DOUBLE', 'TIMESTAMP', 'BOOLEAN', 'DATE'];

/**
 * A SQL program of exactly PROGRAM_BYTES ASCII bytes: tables and views with varied identifiers and
 * literals, so that it compresses like real SQL (a few-fold), not like one repeated line. That
 * matters: a value still over ~2 KB after compression is stored out of line, in the TOAST table, as
 * a real 10 KiB program would be.
 */
export function programText(): string {
  const rnd = random(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const ident = (): string => `${pick(WORDS)}_${pick(WORDS)}_${Math.floor(rnd() * 1000)}`;
  let text = `-- Benchmark program ${TOKEN}: synthetic tables and views.\n\n`;
  for (let t = 0; ; t++) {
    const columns = Array.from({ length: 3 + Math.floor(rnd() * 6) }, () => `  ${ident()} ${pick(TYPES)}`);
    const [first = '', second = ''] = columns.map((c) => c.trim().split(' ')[0] ?? '');
    const table = `CREATE TABLE ${pick(WORDS)}_${t}_${TOKEN} (\n${columns.join(',\n')}\n) WITH ('materialized' = 'true');\n\n`;
    const view =
      `CREATE MATERIALIZED VIEW ${pick(WORDS)}_view_${t}_${TOKEN} AS\n` +
      `  SELECT ${first}, COUNT(*) AS n, MAX(${second}) AS top\n  FROM ${pick(WORDS)}_${t}_${TOKEN}\n` +
      `  WHERE ${first} > ${Math.floor(rnd() * 100_000)} GROUP BY ${first};\n\n`;
    if (text.length + table.length + view.length > PROGRAM_BYTES - 2) break;
    text += table + view;
  }
  return `${text}--${'-'.repeat(PROGRAM_BYTES - text.length - 3)}\n`;
}

export interface SeedResult {
  pipelines: number;
  seconds: number;
  programChars: number;
  /** Average stored (possibly compressed) size of program_code, bytes. */
  programStoredBytes: number;
  heapBytes: number;
  toastBytes: number;
}

/** Creates `bench-00000` through the API, then copies it to `count` pipelines in one INSERT. */
export async function seed(apiUrl: string, databaseUrl: string, count: number): Promise<SeedResult> {
  const started = performance.now();
  const response = await fetch(`${apiUrl}/v0/pipelines`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: pipelineName(0),
      description: 'Benchmark pipeline: synthetic 10 KiB program',
      tags: ['bench', 'synthetic'],
      program_code: programText(),
      runtime_config: { workers: 4, storage: {}, resources: { cpu_cores_min: 1, memory_mb_max: 4096 } },
      program_config: { profile: 'optimized' },
    }),
  });
  if (response.status !== 201) throw new Error(`POST /v0/pipelines: ${response.status} ${await response.text()}`);

  return withClient(databaseUrl, async (c) => {
    // Only the API-owned columns are copied; every other column takes its default, as for a new
    // pipeline. Each copy gets its own number in its program, so no two programs are equal.
    await c.query(
      `INSERT INTO pipeline (id, name, description, tags, platform_version, program_code, udf_rust, udf_toml,
         program_config, runtime_config)
       SELECT gen_random_uuid(), $2 || lpad(i::text, 5, '0'), t.description, t.tags, t.platform_version,
         replace(t.program_code, $3, 'p' || lpad(i::text, 5, '0')), t.udf_rust, t.udf_toml,
         t.program_config, t.runtime_config
       FROM pipeline t, generate_series(1, $4::int - 1) AS i
       WHERE t.name = $1`,
      [pipelineName(0), NAME_PREFIX, TOKEN, count],
    );
    // Steady state for the reads: hint bits set, visibility map and planner statistics current.
    await c.query('VACUUM ANALYZE pipeline');
    const seconds = (performance.now() - started) / 1000;
    // octet_length and pg_column_size read the TOAST pointer only: no program is fetched here.
    const r = await c.query<{ n: number; chars: number; stored: number; heap: number; toast: number }>(
      `SELECT count(*)::int AS n, avg(octet_length(program_code))::int AS chars,
         avg(pg_column_size(program_code))::int AS stored,
         pg_relation_size('pipeline')::bigint::float8 AS heap,
         (SELECT pg_relation_size(reltoastrelid)::float8 FROM pg_class WHERE relname = 'pipeline') AS toast
       FROM pipeline`,
    );
    const row = r.rows[0];
    if (!row || row.n !== count) throw new Error(`seeded ${row?.n ?? 0} pipelines, wanted ${count}`);
    return {
      pipelines: row.n,
      seconds,
      programChars: row.chars,
      programStoredBytes: row.stored,
      heapBytes: row.heap,
      toastBytes: row.toast,
    };
  });
}
