import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conditionOf, installCrd, type Json, pipelines } from '../test/kubernetes/pipeline-resources.js';
import { benchFlags, integerFlag, machineTable, runBench, say, sleep, uptime, writeResult } from './common.js';
import { call, createAll, list as records } from './kubernetes-wave.js';
import { NAMESPACE, STUB_IMAGE, startWorld } from './kubernetes-world.js';
import { machineFacts } from './report.js';

// `npm run bench:pipeline-resources -- [--pipelines 200] [--record]` (issue 31): N Pipeline resources
// applied at once on the test cluster (the world of bench:kubernetes: its own state dir, the chart's
// Role, pods run bench/pipeline-stub.mjs), with the runner's --pipeline-resources controller. Measures
// the time until every resource is Compiled and Ready, and the status writes of the steady state
// after it (resourceVersion changes in a window: the goal is none). Its ceiling, measured first in the
// same run and world: the same N pipelines created and started through the REST API (POST
// /v0/pipelines, POST /start), what the controller does for each resource minus its own work; they
// are stopped again before the resources are applied. See bench/README.md.

const USAGE = `usage: npm run bench:pipeline-resources -- [options]   (run "npm run build" first)
  --pipelines N   resources applied at once (default 200)
  --window S      seconds of steady state watched for status writes (default 30)
  --timeout S     give up after S seconds (default 1200)
  --record        also write bench/results/<date>-pipeline-resources.md`;

const values = benchFlags(USAGE, {
  pipelines: { type: 'string', default: '200' },
  window: { type: 'string', default: '30' },
  timeout: { type: 'string', default: '1200' },
  record: { type: 'boolean', default: false },
});
const N = integerFlag('pipelines', values.pipelines, 1, 2000);
const WINDOW_S = integerFlag('window', values.window, 1, 3600);
const TIMEOUT_S = integerFlag('timeout', values.timeout, 10, 7200);
const s1 = (ms: number) => (ms / 1000).toFixed(1);

const isTrue = (r: Json, type: string) => conditionOf(r, type)?.['status'] === 'True';

/** Polls the API's list until `done` holds for every one of `names`; the time it took from `t0`. */
async function untilAll(api: string, names: string[], done: (deployment: string) => boolean, t0: number) {
  const mine = new Set(names);
  for (;;) {
    if (Date.now() - t0 > TIMEOUT_S * 1000) throw new Error(`REST pipelines not converged in ${TIMEOUT_S} s`);
    const rows = (await records(api)).filter((r) => mine.has(r.name));
    const failed = rows.find((r) => r.deployment_error);
    if (failed) throw new Error(`${failed.name}: ${JSON.stringify(failed.deployment_error)}`);
    if (rows.filter((r) => done(r.deployment_status)).length === names.length) return Date.now() - t0;
    await sleep(500);
  }
}

/**
 * The ceiling: N pipelines created (the same one-table program, another table name so that no
 * compile is shared with the resources') and started through REST, 50 calls at a time; then stopped.
 */
async function restCeiling(api: string) {
  const names = Array.from({ length: N }, (_, i) => `rest-${String(i).padStart(4, '0')}`);
  const t0 = Date.now();
  await createAll(api, names, 'CREATE TABLE r (x INT);');
  const compiled = Date.now() - t0;
  for (let i = 0; i < names.length; i += 50)
    await Promise.all(names.slice(i, i + 50).map((n) => call('POST', `${api}/v0/pipelines/${n}/start`)));
  const running = await untilAll(api, names, (d) => d === 'Running', t0);
  say(`ceiling: ${N} REST pipelines compiled after ${s1(compiled)} s, all Running after ${s1(running)} s`);
  for (let i = 0; i < names.length; i += 50)
    await Promise.all(names.slice(i, i + 50).map((n) => call('POST', `${api}/v0/pipelines/${n}/stop?force=true`)));
  const stopped = Date.now();
  await untilAll(api, names, (d) => d === 'Stopped', stopped);
  say(`ceiling's pipelines stopped again after ${s1(Date.now() - stopped)} s`);
  return { compiled, running };
}

await runBench(async (cleanups) => {
  say(`node ${process.version}; ${uptime()}`);
  const facts = machineFacts('see below');
  const logDir = mkdtempSync(join(tmpdir(), 'svc-bench-crd-logs-'));
  const world = await startWorld(cleanups, logDir, 300, undefined, ['--pipeline-resources']);
  await installCrd(world.admin);
  const ceiling = await restCeiling(world.api);
  const k = pipelines(world.admin, NAMESPACE);
  const list = () => k.list();
  const names = Array.from({ length: N }, (_, i) => `crd-${String(i).padStart(4, '0')}`);
  const t0 = Date.now();
  for (let i = 0; i < names.length; i += 50) {
    await Promise.all(
      names.slice(i, i + 50).map((name) => k.create(name, { program: { sql: 'CREATE TABLE t (x INT);' } })),
    );
  }
  const applied = Date.now() - t0;
  say(`${N} resources applied in ${s1(applied)} s`);
  let compiledAt: number | undefined;
  let readyAt: number | undefined;
  while (readyAt === undefined) {
    if (Date.now() - t0 > TIMEOUT_S * 1000) throw new Error(`not converged in ${TIMEOUT_S} s`);
    const items = await list();
    const compiled = items.filter((r) => isTrue(r, 'Compiled')).length;
    const ready = items.filter((r) => isTrue(r, 'Ready')).length;
    if (compiled === N && compiledAt === undefined) compiledAt = Date.now() - t0;
    if (ready === N) readyAt = Date.now() - t0;
    else await sleep(500);
  }
  say(`all Compiled after ${s1(compiledAt ?? readyAt)} s, all Ready (Running) after ${s1(readyAt)} s`);
  const before = new Map(
    (await list()).map((r) => [(r['metadata'] as Json)['name'], (r['metadata'] as Json)['resourceVersion']]),
  );
  await sleep(WINDOW_S * 1000);
  const writes = (await list()).filter(
    (r) => before.get((r['metadata'] as Json)['name']) !== (r['metadata'] as Json)['resourceVersion'],
  ).length;
  say(`${writes} of ${N} resources written during the ${WINDOW_S} s steady-state window`);
  const after = uptime();
  const table = `| figure | value |
|---|---|
| resources applied (create calls, 50 at a time) | ${s1(applied)} s |
| all Compiled=True, from the first create | ${s1(compiledAt ?? readyAt)} s |
| all Ready=True (deployment Running), from the first create | ${s1(readyAt)} s |
| resources written in ${WINDOW_S} s of steady state | ${writes} (goal 0) |
| ceiling: ${N} pipelines created through REST, all compiled | ${s1(ceiling.compiled)} s |
| ceiling: the same started through REST, all Running, from the first create | ${s1(ceiling.running)} s |
| resources' Ready ÷ the ceiling's Running | ${(readyAt / ceiling.running).toFixed(2)} |`;
  process.stdout.write(`\n${table}\n`);
  if (values.record) {
    const md = `# bench:pipeline-resources — ${N} Pipeline resources applied at once

\`npm run bench:pipeline-resources -- ${process.argv.slice(2).join(' ')}\`

The world of bench:kubernetes (test cluster with its own state dir, the chart's runner Role, \`svc api-server\`,
\`svc compiler-server\`, \`svc runner --backend kubernetes --pipeline-resources\`), pods running \`${STUB_IMAGE}\`
(bench/pipeline-stub.mjs, a stand-in answering /status as Running). ${N} \`Pipeline\` resources
(program \`CREATE TABLE t (x INT);\`, desired Running) created through the API server, 50 at a time; then
polled until every one has Ready=True. Times include compiling the ${N} programs.

The ceiling, measured first in the same run and world: ${N} pipelines created through \`POST /v0/pipelines\`
(the same one-table program with another table name, so no compile is shared) and started with
\`POST /start\`, 50 calls at a time, polled until all Running; then force-stopped (their stopped
records stay while the resources are applied).

## Results

${table}

${machineTable(facts, after)}`;
    say(`recorded ${writeResult('pipeline-resources', facts.date, md)}`);
  }
  return writes === 0;
});
