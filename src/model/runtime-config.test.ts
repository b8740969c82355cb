import { describe, expect, it } from 'vitest';
import { compileRuntimeConfig, isReservedEnvName, RuntimeConfigInput } from './runtime-config.js';

describe('runtime_config compile step', () => {
  it('is idempotent: compiling a compiled config gives it back unchanged', () => {
    const once = compileRuntimeConfig(
      RuntimeConfigInput.parse({ workers: 3, storage: {}, fault_tolerance: { checkpoint_interval_secs: 9999 } }),
    );
    expect(compileRuntimeConfig(RuntimeConfigInput.parse(once))).toEqual(once);
  });

  it.each([
    ['RUST_LOG', true],
    ['RUST_LOGGER', false],
    ['SVC_', true],
    ['SVC_ANY', true],
    ['svc_lower', false],
    ['KUBERNETES_SERVICE_HOST', true],
    ['TOKIO_WORKER_THREADS', true],
    ['MY_SVC_VAR', false],
  ])('reserved env name %s: %s', (name, reserved) => {
    expect(isReservedEnvName(name)).toBe(reserved);
  });

  it('needs at least twice as many pinned CPUs as workers, without duplicates', () => {
    expect(RuntimeConfigInput.safeParse({ workers: 2, pin_cpus: [0, 1, 2, 3] }).success).toBe(true);
    expect(RuntimeConfigInput.safeParse({ workers: 2, pin_cpus: [0, 1, 2] }).success).toBe(false);
    expect(RuntimeConfigInput.safeParse({ workers: 1, pin_cpus: [0, 0] }).success).toBe(false);
    expect(RuntimeConfigInput.safeParse({ pin_cpus: [] }).success).toBe(true);
  });
});
