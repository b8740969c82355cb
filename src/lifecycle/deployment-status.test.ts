import { describe, expect, it } from 'vitest';
import { deploymentDesiredStatus, deploymentStatus, later } from './deployment-status.js';

describe('combined deployment status (LIFECYCLE.md)', () => {
  it.each([
    ['Stopped', null, 'Stopped'],
    ['Provisioning', 'Running', 'Provisioning'],
    ['Stopping', 'Running', 'Stopping'],
    ['Provisioned', null, 'Unavailable'],
    ['Provisioned', 'Initializing', 'Initializing'],
    ['Provisioned', 'Running', 'Running'],
    ['Provisioned', 'AwaitingApproval', 'AwaitingApproval'],
  ] as const)('resources %s + runtime %s → %s', (resources, runtime, expected) => {
    expect(deploymentStatus(resources, runtime)).toBe(expected);
  });

  it.each([
    ['Stopped', 'Running', 'Running', 'Stopped'],
    ['Provisioned', null, 'Paused', 'Paused'],
    ['Provisioned', 'Running', 'Paused', 'Running'],
    ['Provisioned', 'Suspended', 'Running', 'Suspended'],
    ['Provisioned', 'Coordination', 'Standby', 'Standby'],
    ['Provisioned', null, null, 'Running'],
  ] as const)('desired %s + runtime desired %s + initial %s → %s', (res, runtime, initial, expected) => {
    expect(deploymentDesiredStatus(res, runtime, initial)).toBe(expected);
  });

  it('later() picks the later timestamp and ignores a missing one', () => {
    expect(later('2026-01-01T00:00:00.000001Z', '2026-01-01T00:00:00.000002Z')).toBe('2026-01-01T00:00:00.000002Z');
    expect(later('2026-01-01T00:00:00.000001Z', null)).toBe('2026-01-01T00:00:00.000001Z');
  });
});
