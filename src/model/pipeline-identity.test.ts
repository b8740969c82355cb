import { describe, expect, it } from 'vitest';
import { SvcError } from './errors.js';
import { checkPipelineIdentity } from './pipeline-identity.js';

const refusal = (f: () => void) => {
  try {
    f();
  } catch (e) {
    if (e instanceof SvcError) return { status: e.status, ...e.toBody() };
    throw e;
  }
  return undefined;
};

describe('checkPipelineIdentity', () => {
  const lists = { serviceAccounts: ['svc-pipeline'], initContainerImages: [] };

  it('allows the listed account, no account, and no init containers', () => {
    expect(refusal(() => checkPipelineIdentity({ resources: { service_account_name: 'svc-pipeline' } }, lists))).toBe(
      undefined,
    );
    expect(refusal(() => checkPipelineIdentity({ resources: { service_account_name: null } }, lists))).toBe(undefined);
    expect(refusal(() => checkPipelineIdentity({ init_containers: [] }, lists))).toBe(undefined);
  });

  it("refuses another account (the runner's) with a 400 naming the field", () => {
    const r = refusal(() => checkPipelineIdentity({ resources: { service_account_name: 'svc-runner' } }, lists));
    expect(r).toMatchObject({
      status: 400,
      error_code: 'InvalidRuntimeConfig',
      details: { field: 'runtime_config.resources.service_account_name', bound: 'pipeline.serviceAccounts' },
    });
    expect(r?.message).toContain("'svc-runner'");
  });

  it('refuses any init container by default, and one image not on the list', () => {
    const one = [{ name: 'a', image: 'busybox' }];
    expect(refusal(() => checkPipelineIdentity({ init_containers: one }, lists))).toMatchObject({
      status: 400,
      details: { field: 'runtime_config.init_containers[0].image', bound: 'pipeline.initContainerImages' },
    });
    const listed = { ...lists, initContainerImages: ['busybox'] };
    const two = [...one, { name: 'b', image: 'evil:latest' }];
    expect(refusal(() => checkPipelineIdentity({ init_containers: two }, listed))?.details).toMatchObject({
      field: 'runtime_config.init_containers[1].image',
    });
    expect(refusal(() => checkPipelineIdentity({ init_containers: one }, listed))).toBe(undefined);
    expect(refusal(() => checkPipelineIdentity({ init_containers: { image: 'busybox' } }, listed))).toBe(undefined);
    expect(refusal(() => checkPipelineIdentity({ init_containers: 'x' }, listed))?.details).toMatchObject({
      field: 'runtime_config.init_containers[0].image',
    });
  });

  it('without allowlists (no cluster) allows anything', () => {
    const runtime = { resources: { service_account_name: 'x' }, init_containers: [{ image: 'y' }] };
    expect(refusal(() => checkPipelineIdentity(runtime, {}))).toBe(undefined);
  });
});
