import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/http/metrics.js';
import { runnerLogs } from '../../src/api/runner-logs.js';
import { buildRunnerApp } from '../../src/runner/http.js';
import type { Database } from '../../src/store/database.js';
import { type Harness, openBackend, pipelineBody, startHarness } from '../support/api-harness.js';

// `svc api-server --runner-url` in front of a runner app built without log streams (buildRunnerApp
// without `logs`; both backends have them since issue 29). The runner's answer reaches the client
// unchanged, plus the runner's URL. The local backend's streams are covered end to end by
// test/cli/split.test.ts, the Kubernetes runner's (pods/log) by test/cluster/node/pod-loss.test.ts.

describe('/logs through a runner without log streams', () => {
  let runner: FastifyInstance;
  let runnerDb: Database;
  let runnerUrl: string;
  let h: Harness;
  beforeAll(async () => {
    runnerDb = (await openBackend('pglite')).db;
    runner = buildRunnerApp({ db: runnerDb, registry: createRegistry(), leading: () => true });
    runnerUrl = await runner.listen({ port: 0, host: '127.0.0.1' });
    h = await startHarness('pglite', { pipelineLogs: runnerLogs(runnerUrl) });
  });
  afterAll(async () => {
    await h.close();
    await runner.close();
    await runnerDb.close();
  });

  it('answers 503 PipelineUnavailable saying where the logs are instead', async () => {
    const id = (await h.request('POST', '/v0/pipelines', pipelineBody('k8s'))).body.id as string;
    const r = await h.request('GET', '/v0/pipelines/k8s/logs');
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      message: `This runner's backend keeps no pipeline log streams: a Kubernetes pipeline logs to its pod (kubectl logs statefulset/pipeline-${id})`,
      error_code: 'PipelineUnavailable',
      details: { pipeline_id: id, runner_url: runnerUrl },
    });
  });

  it('an unknown pipeline is 404 at the API, before any runner is asked', async () => {
    const r = await h.request('GET', '/v0/pipelines/nope/logs');
    expect(r.status).toBe(404);
    expect(r.body.error_code).toBe('UnknownPipelineName');
  });

  it("the runner's endpoint refuses what is not a pipeline id", async () => {
    const res = await fetch(`${runnerUrl}/v0/pipelines/..%2F..%2Fetc/logs`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      message: 'pipeline_id: must be a pipeline id (a UUID)',
      error_code: 'MalformedRequest',
      details: { field: 'pipeline_id' },
    });
  });
});
