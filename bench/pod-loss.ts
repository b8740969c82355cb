import * as k8s from '@kubernetes/client-node';
import {
  benchFlags,
  integerFlag,
  machineTable,
  runBench,
  say,
  sleep,
  uptime,
  waitForQuiet,
  writeResult,
} from './common.js';
import { NAMESPACE, startRealNodeWorld } from './pod-loss-world.js';
import { machineFacts } from './report.js';

// `npm run bench:pod-loss -- [--tries 10] [--record]`: issue 29's "how long a pipeline is unavailable
// after a pod deletion". On the real node (containerd + kubelet, bench/pod-loss-world.ts), a
// fault-tolerant pipeline's pod is deleted N times (`kubectl delete pod`): the time until the old pod
// is gone (SIGTERM → checkpoint → exit), until the new pod is Ready, and until the record says Running
// again (the runner noticed, the process restored its checkpoint). The ceiling, measured in the same
// run, alternating with the pipeline: a bare StatefulSet that is the pipeline's own (same pod spec,
// image, init container, claim and readiness probe) with a stand-in process that only listens and
// exits at SIGTERM: what Kubernetes alone takes to bring such a pod back. See bench/README.md.

const USAGE = `usage: npm run bench:pod-loss -- [options]   (run "npm run build" first; root; the machine's one real node)
  --tries N     pod deletions of the pipeline and of the ceiling each (default 10)
  --rows N      rows in the pipeline's table, checked after the last try (default 1000)
  --record      also write bench/results/<date>-pod-loss.md (waits up to --max-wait s for load < 2)
  --max-wait S  seconds to wait for a quiet machine and for other test clusters' pods (default 300)`;

const values = benchFlags(USAGE, {
  tries: { type: 'string', default: '10' },
  rows: { type: 'string', default: '1000' },
  record: { type: 'boolean', default: false },
  'max-wait': { type: 'string', default: '300' },
});
const TRIES = integerFlag('tries', values.tries, 1, 100);
const ROWS = integerFlag('rows', values.rows, 1, 1_000_000);
const MAX_WAIT_S = integerFlag('max-wait', values['max-wait'], 0, 3600);
const PIPELINE = 'loss';
const PROGRAM = "CREATE TABLE t (id INT NOT NULL) WITH ('materialized' = 'true');";
/** The ceiling's process: ready when it listens, gone at SIGTERM (node as PID 1 ignores it otherwise). */
const STAND_IN =
  "require('node:http').createServer((q, r) => r.end()).listen(8080); process.on('SIGTERM', () => process.exit(0));";
const POLL_MS = 100;

type Json = Record<string, unknown>;

interface Try {
  /** ms from the delete call: the old pod gone, the new pod Ready, the record Running again. */
  gone: number;
  ready: number;
  running?: number;
}

async function call(
  api: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const r = await fetch(`${api}${path}`, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: r.status, body: (await r.json().catch(() => ({}))) as Json };
}

async function until<T>(what: string, timeoutMs: number, look: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look().catch(() => undefined);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

const isReady = (pod: k8s.V1Pod | undefined) =>
  pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** The pipeline's StatefulSet as a bare one named `ceiling`: same pod, the stand-in process. */
function ceilingOf(sts: k8s.V1StatefulSet): k8s.V1StatefulSet {
  const spec = structuredClone(sts.spec) as k8s.V1StatefulSetSpec;
  const labels = { app: 'svc-bench-ceiling' };
  spec.selector = { matchLabels: labels };
  spec.serviceName = 'ceiling';
  spec.template.metadata = { labels };
  // Its claims must not carry the pipeline's labels: the runner would take them for the pipeline's.
  for (const claim of spec.volumeClaimTemplates ?? []) claim.metadata = { name: claim.metadata?.name ?? 'storage' };
  for (const container of spec.template.spec?.containers ?? []) {
    container.command = ['node', '-e', STAND_IN];
    container.args = [];
  }
  return { metadata: { name: 'ceiling', namespace: NAMESPACE }, spec };
}

/** Deletes pod `name` and times its way back; `running` (the pipeline) also waits for the record. */
async function lose(core: k8s.CoreV1Api, name: string, running?: () => Promise<boolean>): Promise<Try> {
  const uid = (await core.readNamespacedPod({ name, namespace: NAMESPACE })).metadata?.uid;
  const t0 = Date.now();
  await core.deleteNamespacedPod({ name, namespace: NAMESPACE });
  const times: Partial<Try> = {};
  await until(`${name} back`, 600_000, async () => {
    const pod = await core.readNamespacedPod({ name, namespace: NAMESPACE }).catch(() => undefined);
    const now = Date.now() - t0;
    const fresh = pod?.metadata?.uid !== uid;
    if (fresh) times.gone ??= now;
    if (fresh && isReady(pod)) times.ready ??= now;
    if (running && times.running === undefined && fresh && (await running())) times.running = Date.now() - t0;
    return times.ready !== undefined && (!running || times.running !== undefined) ? true : undefined;
  });
  return times as Try;
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
};
const s2 = (ms: number) => (ms / 1000).toFixed(2);
const row = (label: string, xs: number[]) =>
  `| ${label} | ${xs.length} | ${s2(Math.min(...xs))} | ${s2(pct(xs, 50))} | ${s2(pct(xs, 99))} | ${s2(Math.max(...xs))} |`;

runBench(async (cleanups) => {
  if (values.record) await waitForQuiet(2, MAX_WAIT_S);
  const facts = machineFacts('see below');
  // Every try is a loss: the runner must tolerate them all (its default is 5 within 600 s).
  const world = await startRealNodeWorld(cleanups, MAX_WAIT_S, ['--pod-restart-limit', String(TRIES + 5)]);
  const core = world.admin.makeApiClient(k8s.CoreV1Api);
  const apps = world.admin.makeApiClient(k8s.AppsV1Api);
  const record = async () => (await call(world.api, 'GET', `/v0/pipelines/${PIPELINE}`)).body;

  const created = await call(world.api, 'POST', '/v0/pipelines', {
    name: PIPELINE,
    program_code: PROGRAM,
    runtime_config: { fault_tolerance: { checkpoint_interval_secs: 3600 } },
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const id = String(created.body['id']);
  await until('compiled', 300_000, async () => ((await record())['program_status'] === 'Success' ? true : undefined));
  await call(world.api, 'POST', `/v0/pipelines/${PIPELINE}/start`);
  await until('Running', 300_000, async () => ((await record())['deployment_status'] === 'Running' ? true : undefined));
  const rows = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ id: i })).join('\n');
  const pushed = await fetch(`${world.api}/v0/pipelines/${PIPELINE}/ingress/t?format=json&update_format=raw`, {
    method: 'POST',
    body: rows,
  });
  if (pushed.status !== 200) throw new Error(`ingress: ${pushed.status} ${await pushed.text()}`);

  const sts = await apps.readNamespacedStatefulSet({ name: `pipeline-${id}`, namespace: NAMESPACE });
  await apps.createNamespacedStatefulSet({ namespace: NAMESPACE, body: ceilingOf(sts) });
  await until('ceiling Ready', 300_000, async () =>
    isReady(await core.readNamespacedPod({ name: 'ceiling-0', namespace: NAMESPACE })) ? true : undefined,
  );

  const pipeline: Try[] = [];
  const ceiling: Try[] = [];
  for (let i = 1; i <= TRIES; i += 1) {
    const since = (await record())['deployment_status_since'];
    const back = async () => {
      const p = await record();
      return p['deployment_status'] === 'Running' && p['deployment_status_since'] !== since;
    };
    pipeline.push(await lose(core, `pipeline-${id}-0`, back));
    await sleep(2_000);
    ceiling.push(await lose(core, 'ceiling-0'));
    say(`try ${i}: pipeline ${JSON.stringify(pipeline.at(-1))}, ceiling ${JSON.stringify(ceiling.at(-1))}`);
    await sleep(2_000);
  }

  // The pipeline came back each time with its data (restored from the checkpoint of each SIGTERM).
  const sql = encodeURIComponent('SELECT count(*) AS n FROM t');
  const counted = await (await fetch(`${world.api}/v0/pipelines/${PIPELINE}/query?format=json&sql=${sql}`)).text();
  const last = await record();
  const intact = counted.trim() === JSON.stringify({ n: ROWS }) && last['deployment_error'] == null;
  say(
    `after ${TRIES} tries: ${counted.trim()} (want ${ROWS}), deployment_error ${JSON.stringify(last['deployment_error'])}`,
  );

  const table = [
    '| from `kubectl delete pod` to | tries | min s | p50 s | p99 s | max s |',
    '|---|---|---|---|---|---|',
    row(
      'pipeline: old pod gone (SIGTERM, checkpoint, exit)',
      pipeline.map((t) => t.gone),
    ),
    row(
      'pipeline: new pod Ready',
      pipeline.map((t) => t.ready),
    ),
    row(
      '**pipeline: Running again in the record** (unavailable)',
      pipeline.map((t) => t.running ?? NaN),
    ),
    row(
      'ceiling: old pod gone',
      ceiling.map((t) => t.gone),
    ),
    row(
      'ceiling: new pod Ready',
      ceiling.map((t) => t.ready),
    ),
  ].join('\n');
  process.stdout.write(`${table}\n\ndata intact after the tries: ${intact}\n`);
  if (values.record) {
    const md = `# bench:pod-loss — ${facts.date}

\`npm run bench:pod-loss -- --tries ${TRIES} --rows ${ROWS} --record\` on the real node (bench/README.md).
Each try deletes the fault-tolerant pipeline's pod, then (2 s later) the ceiling's; the times are
polled every ${POLL_MS} ms. p99 of ${TRIES} tries is their maximum.

${table}

After the last try the table held ${counted.trim()} (want ${ROWS} rows) and the record no error:
${intact ? 'intact' : '**not intact**'}.

${machineTable(facts, uptime(), { postgres: world.postgres, image: world.svcImage })}`;
    say(`recorded ${writeResult('pod-loss', facts.date, md)}`);
  }
  return intact;
});
