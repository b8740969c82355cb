import { describe, expect, it } from 'vitest';
import { storedRow } from '../lifecycle/row.fixture.js';
import { toRecord } from './record.js';

// Seed 2.2: the record's `connectors` is the pipeline's connector error sum from its last status,
// served with selector=status_with_connectors.
describe('record connectors', () => {
  const row = storedRow({ deployment_runtime_status_details: { connector_stats: { num_errors: 7 } } });
  it('status_with_connectors carries the error sum the pipeline reported', () => {
    expect(toRecord(row, 'status_with_connectors').connectors).toEqual({ num_errors: 7 });
  });
  it('other selectors leave it out; a pipeline that cannot be asked has it null', () => {
    expect(toRecord(row, 'status')).not.toHaveProperty('connectors');
    expect(toRecord(storedRow(), 'status_with_connectors').connectors).toBeNull();
  });
});
