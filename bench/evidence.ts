import type { Selector } from '../src/model/status.js';
import type { Queryable } from '../src/store/database.js';
import { columnsFor, HEAVY_COLUMNS } from '../src/store/pipelines/columns.js';
import { listPipelines } from '../src/store/pipelines/select.js';
import { type Counters, quietCounters, settle } from './counters.js';
import { withClient } from './database.js';
import { PROGRAM_BYTES, pipelineName } from './seed.js';

// Proof that GET /v0/pipelines?selector=status does not read program texts, three ways:
// 1. the plan: EXPLAIN (VERBOSE) of the exact SQL the list issues outputs no heavy column;
// 2. the server's I/O: list requests read no TOAST block, where GET one with selector=all does;
// 3. the answer: its size is far below 10,000 × 10 KiB, and no record carries program_code.

/** The members `status` must not read: the store's own list, so the proof follows it. */
const HEAVY = HEAVY_COLUMNS;

export interface Evidence {
  ok: boolean;
  lines: string[];
  listBytes: number;
  /** Settled counters after the last request: the next phase's baseline. */
  after: Counters;
}

/** The SQL `listPipelines` sends, caught by a stand-in database: no copy of it to drift. */
async function listSql(selector: Selector): Promise<string> {
  const sent: string[] = [];
  const spy: Queryable = {
    async query<R extends object>(sql: string): Promise<R[]> {
      sent.push(sql);
      return [];
    },
    async exec() {},
  };
  await listPipelines(spy, selector);
  if (sent.length !== 1 || !sent[0]) throw new Error(`listPipelines sent ${sent.length} queries, expected 1`);
  return sent[0];
}

interface PlanNode {
  'Node Type': string;
  'Workers Launched'?: number;
  Output?: string[];
  Plans?: PlanNode[];
}

const launched = (n: PlanNode): number =>
  (n['Workers Launched'] ?? 0) + (n.Plans ?? []).reduce((sum, child) => sum + launched(child), 0);
const outputsOf = (node: PlanNode): string[] => [...(node.Output ?? []), ...(node.Plans ?? []).flatMap(outputsOf)];
const heavyIn = (outputs: string[]): string[] =>
  HEAVY.filter((h) => outputs.some((o) => new RegExp(`\\b${h}\\b`).test(o)));

async function explain(databaseUrl: string, sql: string): Promise<{ nodes: string; heavy: string[] }> {
  return withClient(databaseUrl, async (c) => {
    const r = await c.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`);
    const plan = r.rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error('EXPLAIN returned no plan');
    const names = (n: PlanNode): string[] => [n['Node Type'], ...(n.Plans ?? []).flatMap(names)];
    return { nodes: names(plan).join(' → '), heavy: heavyIn(outputsOf(plan)) };
  });
}

/**
 * Where the list's time goes, database side: median execution time of EXPLAIN ANALYZE (which
 * computes every output column but sends none), and the parallel workers the plan launched.
 */
async function executionMs(databaseUrl: string, sql: string): Promise<{ ms: number; workers: number }> {
  return withClient(databaseUrl, async (c) => {
    const times: number[] = [];
    let workers = 0;
    for (let i = 0; i < 5; i++) {
      const r = await c.query<{ 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
      );
      const top = r.rows[0]?.['QUERY PLAN'][0];
      times.push(top?.['Execution Time'] ?? NaN);
      workers = top ? launched(top.Plan) : 0;
    }
    return { ms: times.sort((a, b) => a - b)[2] ?? NaN, workers };
  });
}

const get = async (url: string): Promise<{ status: number; bytes: number; body: unknown }> => {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) as unknown };
};

const hasProgram = (record: unknown): boolean =>
  typeof record === 'object' && record !== null && 'program_code' in record;

export async function gatherEvidence(apiUrl: string, databaseUrl: string, count: number): Promise<Evidence> {
  const lines: string[] = [];
  let ok = true;
  const check = (pass: boolean, text: string): void => {
    ok &&= pass;
    lines.push(`- ${pass ? 'PASS' : 'FAIL'}: ${text}`);
  };

  // 1. The plan of the exact SQL, with selector=all as the control that the check can fail.
  const sql = await listSql('status');
  check(sql.includes(columnsFor('status')), "the list query selects exactly `columnsFor('status')`");
  const status = await explain(databaseUrl, sql);
  check(
    status.heavy.length === 0,
    `EXPLAIN (VERBOSE) of the list query (${status.nodes}): no heavy column in any node's output`,
  );
  const all = await explain(databaseUrl, await listSql('all'));
  check(all.heavy.includes('program_code'), `control: the same check on selector=all finds ${all.heavy.join(', ')}`);
  const db = await executionMs(databaseUrl, sql);
  lines.push(
    `- database side: the list query executes in ${db.ms.toFixed(0)} ms (EXPLAIN ANALYZE, median of 5, ` +
      `${db.workers} parallel workers launched); the rest of a request's time is the API process`,
  );
  lines.push('', '  ```sql', `  ${sql.replace(/\s+/g, ' ')}`, '  ```', '');

  // 2. and 3. Three real list requests, then three GET-one with selector=all as the control.
  const runs = 3;
  // The baseline after the EXPLAIN ANALYZE runs above, so that only the HTTP requests are counted.
  const quiet = await quietCounters(databaseUrl);
  let listBytes = 0;
  let listRight = true;
  for (let i = 0; i < runs; i++) {
    const r = await get(`${apiUrl}/v0/pipelines?selector=status`);
    const records = Array.isArray(r.body) ? r.body : [];
    listRight &&= r.status === 200 && records.length === count && !records.some(hasProgram);
    listBytes = r.bytes;
  }
  check(listRight, `${runs} × list?selector=status: HTTP 200, ${count} records, none with program_code`);
  const { delta: list, now: afterList } = await settle(databaseUrl, quiet, runs);
  check(
    list.settled && list.toastBlocks === 0,
    `${runs} × list?selector=status read ${list.toastBlocks} TOAST blocks (${list.heapBlocks} heap blocks)`,
  );
  const naive = count * PROGRAM_BYTES;
  check(
    listBytes < naive / 10,
    `list?selector=status answers ${(listBytes / 1e6).toFixed(2)} MB ` +
      `(${Math.round(listBytes / count)} B a record, no program_code) vs ${(naive / 1e6).toFixed(1)} MB of programs alone`,
  );

  let oneRight = true;
  for (let i = 0; i < runs; i++) {
    const r = await get(`${apiUrl}/v0/pipelines/${pipelineName(Math.floor((i * count) / runs))}?selector=all`);
    const code = typeof r.body === 'object' && r.body !== null && 'program_code' in r.body ? r.body.program_code : '';
    oneRight &&= r.status === 200 && typeof code === 'string' && code.length === PROGRAM_BYTES;
  }
  check(oneRight, `control: ${runs} × GET one ?selector=all: HTTP 200 with the ${PROGRAM_BYTES}-byte program_code`);
  const { delta: one, now: afterOne } = await settle(databaseUrl, afterList, runs);
  check(
    one.settled && one.toastBlocks > 0,
    `control: ${runs} × GET one ?selector=all read ${one.toastBlocks} TOAST blocks (the counter sees program reads)`,
  );

  // For scale, once: what the same list costs with selector=all.
  const started = performance.now();
  const full = await get(`${apiUrl}/v0/pipelines?selector=all`);
  const seconds = (performance.now() - started) / 1000;
  const { delta: fullIo, now: after } = await settle(databaseUrl, afterOne, 1);
  lines.push(
    `- for scale, one list?selector=all (not a scenario): HTTP ${full.status}, ${(full.bytes / 1e6).toFixed(1)} MB ` +
      `in ${seconds.toFixed(2)} s, ${fullIo.toastBlocks} TOAST blocks`,
  );
  return { ok, lines, listBytes, after };
}
