import { describe, expect, it } from 'vitest';
import { decide } from './resources.js';
import { storedRow } from './row.fixture.js';

// Issue 29: a fault-tolerant pipeline's pod came back (Kubernetes: a new pod, a new IP with
// --pipeline-address pod-ip). The runner asks its status there from then on.

const row = storedRow({
  program_status: 'Success',
  deployment_resources_status: 'Provisioned',
  deployment_resources_desired_status: 'Provisioned',
  deployment_id: '00000000-0000-4000-8000-000000000002',
  deployment_location: 'http://10.0.0.5:8080',
  deployment_runtime_status: 'Unavailable',
});
const SETTINGS = { defaultProvisioningTimeoutSecs: 20, initializingGraceSecs: 20 };

describe('Provisioned, relocated', () => {
  it('the location moves, nothing else: the next look asks the new pod', () => {
    expect(decide(row, { kind: 'relocated', location: 'http://10.0.0.9:8080' }, Date.now(), SETTINGS)).toEqual({
      set: { deployment_location: 'http://10.0.0.9:8080' },
      stamp: [],
      bump: ['refresh_version'],
    });
  });
});
