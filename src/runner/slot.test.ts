import { describe, expect, it } from 'vitest';
import type { VersionedRunnerRow } from '../model/pipeline-row.js';
import { beginLook, endLook, newSlot, noteWake } from './slot.js';

const row = (version: string) => ({ id: 'p', row_version: version }) as VersionedRunnerRow;

describe('the driver keeps a row between looks only while it is known to be current', () => {
  it('a backend event reuses the kept row; its wake time is the one the look answers', () => {
    const slot = newSlot();
    endLook(slot, row('10'));
    noteWake(slot, { kind: 'backend' }, 1_000);
    noteWake(slot, { kind: 'backend' }, 1_500);
    expect(beginLook(slot)).toEqual({ known: row('10'), wokenAt: 1_000 });
    // Answered: the next look has no pending wake-up.
    expect(beginLook(slot).wokenAt).toBeUndefined();
  });

  it('a poll that sees the same version reuses it; a different version drops it', () => {
    const slot = newSlot();
    endLook(slot, row('10'));
    noteWake(slot, { kind: 'poll', rowVersion: '10' }, 0);
    expect(beginLook(slot).known).toEqual(row('10'));
    endLook(slot, row('10'));
    noteWake(slot, { kind: 'poll', rowVersion: '11' }, 0);
    expect(beginLook(slot).known).toBeUndefined();
  });

  it.each(['notify', 'retry'] as const)('a %s always reads again', (kind) => {
    const slot = newSlot();
    endLook(slot, row('10'));
    noteWake(slot, { kind }, 0);
    expect(beginLook(slot).known).toBeUndefined();
  });

  it('a NOTIFY during a look: the row that look read is not kept, the next look reads', () => {
    const slot = newSlot();
    endLook(slot, row('10'));
    const look = beginLook(slot);
    expect(look.known).toEqual(row('10'));
    noteWake(slot, { kind: 'notify' }, 5);
    endLook(slot, row('10'));
    expect(slot.row).toBeUndefined();
    expect(beginLook(slot)).toEqual({ known: undefined, wokenAt: 5 });
    // After that read, the row is kept again.
    endLook(slot, row('12'));
    expect(beginLook(slot).known).toEqual(row('12'));
  });

  it('a fresh slot has nothing to reuse', () => {
    expect(beginLook(newSlot()).known).toBeUndefined();
  });
});
