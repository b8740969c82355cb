import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, startSvc } from '../support/svc-process.js';
import { client, kubernetesArgs, type RunnerWorld, startWorld } from './harness.js';

// `svc manager --runner kubernetes` (the chart's combined mode): API, compiler and the Kubernetes
// runner in one process on the embedded database; its /metrics carries the runner's metrics.

let world: RunnerWorld;
beforeAll(async () => {
  world = await startWorld('runner-combined', false);
});
afterAll(async () => world?.close());

const metric = (text: string, name: string): number =>
  text
    .split('\n')
    .filter((l) => l.startsWith(name))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

describe('svc manager --runner kubernetes', { timeout: 300_000 }, () => {
  it('runs a pipeline as a StatefulSet and reports the runner metrics', async () => {
    const svc = startSvc([
      'manager',
      '--port',
      '0',
      '--data-dir',
      mkdtempSync(join(tmpdir(), 'svc-combined-')),
      '--runner',
      'kubernetes',
      ...kubernetesArgs(world),
    ]);
    world.procs.push(svc);
    const ready = await svc.waitForLine((l) => message(l).startsWith('svc manager ready at'), 90_000);
    world.api = String((ready['fields'] as { url: string }).url);
    const api = client(world);
    await api.create('combined');
    expect((await api.call('POST', '/v0/pipelines/combined/start')).status).toBe(202);
    await api.until('combined', (p) => p['deployment_status'] === 'Running');
    expect((await api.call('POST', '/v0/pipelines/combined/stop?force=true')).status).toBe(202);
    await api.until('combined', (p) => p['deployment_status'] === 'Stopped');

    const text = await (await fetch(`${world.api}/metrics`)).text();
    expect(metric(text, 'svc_runner_provisioning_duration_seconds_count')).toBe(1);
    expect(metric(text, 'svc_runner_reconcile_duration_seconds_count')).toBeGreaterThan(0);
    expect(metric(text, 'svc_runner_kubernetes_requests_total{verb="patch",resource="statefulsets"}')).toBe(1);
    expect(metric(text, 'svc_runner_kubernetes_requests_total{verb="list"')).toBe(4);
    expect(text).toContain('svc_runner_informer_restarts_total');
    svc.child.kill('SIGTERM');
    expect(await svc.exited).toBe(0);
  });
});
