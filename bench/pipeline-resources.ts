import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { conditionOf, installCrd, type Json, pipelines } from '../test/kubernetes/pipeline-resources.js';
import { benchFlags, integerFlag, machineTable, runBench, say, sleep, uptime, writeResult } from './common.js';
import { NAMESPACE, STUB_IMAGE, startWorld } from './kubernetes-world.js';
import { machineFacts } from './report.js';

// `npm run bench:pipeline-resources -- [--pipelines 200] [--record]` (issue 31): N Pipeline resources
// applied at once on the test cluster (the world of bench:kubernetes: its own state dir, the chart's
// Role, pods run bench/pipeline-stub.mjs), with the runner's --pipeline-resources controller. Measures
// the time until every resource is Compiled and Ready, and the status writes of the steady state
// after it (resourceVersion changes in a window: the goal is none). See bench/README.md.

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

await runBench(async (cleanups) => {
  say(`node ${process.version}; ${uptime()}`);
  const facts = machineFacts('see below');
  const logDir = mkdtempSync(join(tmpdir(), 'svc-bench-crd-logs-'));
  const world = await startWorld(cleanups, logDir, 300, undefined, ['--pipeline-resources']);
  await installCrd(world.admin);
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
| resources written in ${WINDOW_S} s of steady state | ${writes} (goal 0) |`;
  process.stdout.write(`\n${table}\n`);
  if (values.record) {
    const md = `# bench:pipeline-resources — ${N} Pipeline resources applied at once

\`npm run bench:pipeline-resources -- ${process.argv.slice(2).join(' ')}\`

The world of bench:kubernetes (test cluster with its own state dir, the chart's runner Role, \`svc api-server\`,
\`svc compiler-server\`, \`svc runner --backend kubernetes --pipeline-resources\`), pods running \`${STUB_IMAGE}\`
(bench/pipeline-stub.mjs, a stand-in answering /status as Running). ${N} \`Pipeline\` resources
(program \`CREATE TABLE t (x INT);\`, desired Running) created through the API server, 50 at a time; then
polled until every one has Ready=True. Times include compiling the ${N} programs.

## Results

${table}

${machineTable(facts, after)}`;
    say(`recorded ${writeResult('pipeline-resources', facts.date, md)}`);
  }
  return writes === 0;
});
