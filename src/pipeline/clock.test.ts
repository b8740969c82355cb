import { describe, expect, it } from 'vitest';
import { Clock, parseOffset, startingNow } from './clock.js';

const WALL = 1_700_000_000_000;
const OFFSET = Date.parse('2001-02-03T04:05:06Z');
const NEW_OFFSET = Date.parse('1999-01-01T00:00:00Z');
const JOURNALED = WALL - 3_600_000;

describe('startingNow: seed 2.6.1, now_offset on a fresh start and on resume', () => {
  it.each<[string, number | undefined, number | undefined, number]>([
    ['fresh, no offset: wall clock', undefined, undefined, WALL],
    ['fresh, offset: the offset', OFFSET, undefined, OFFSET],
    // Resume rows: (initial run, resume) → NOW() after replay. The journaled value already carries
    // whatever the initial run did, so only "offset now?" matters.
    ['no offset → no offset: wall clock, unchanged', undefined, JOURNALED, WALL],
    ['offset → offset: from the journaled value, new offset ignored', NEW_OFFSET, OFFSET + 5000, OFFSET + 5000],
    ['offset → no offset: jumps to wall clock', undefined, OFFSET + 5000, WALL],
    ['no offset → offset: from the journaled value, new offset ignored', OFFSET, JOURNALED, JOURNALED],
  ])('%s', (_name, offsetMs, journaledMs, expected) => {
    expect(startingNow({ offsetMs, journaledMs, wallMs: WALL })).toBe(expected);
  });
});

describe('parseOffset', () => {
  it.each<[string, number | undefined]>([
    ['2001-02-03T04:05:06Z', OFFSET],
    ['2001-02-03T05:05:06+01:00', OFFSET],
    ['0001-01-01T00:00:00Z', Date.parse('0001-01-01T00:00:00Z')],
    ['9999-12-31T23:59:59.999Z', Date.parse('9999-12-31T23:59:59.999Z')],
    ['0000-01-01T00:00:00Z', undefined],
    ['yesterday', undefined],
    ['2001-02-03', undefined],
  ])('%s', (text, expected) => expect(parseOffset(text)).toBe(expected));
});

describe('Clock', () => {
  it('a wall-driven clock moves at wall pace from its start, only on ticks', () => {
    let wall = WALL;
    const clock = new Clock({ start: OFFSET, httpDriven: false, resolutionMs: 1000, wall: () => wall });
    wall += 2500;
    expect(clock.now()).toBe(OFFSET);
    expect(clock.tick()).toBe(OFFSET + 2500);
    expect(() => clock.advance(10)).toThrow(expect.objectContaining({ errorCode: 'InvalidClockAdvance' }));
  });

  it('an HTTP-driven clock holds and only moves forward', () => {
    let wall = WALL;
    const clock = new Clock({ start: OFFSET, httpDriven: true, resolutionMs: 1000, wall: () => wall });
    wall += 60_000;
    expect(clock.tick()).toBe(OFFSET);
    expect(clock.advance(1500)).toBe(OFFSET + 1500);
    expect(clock.advance(0)).toBe(OFFSET + 1500);
    expect(() => clock.advance(-1)).toThrow(expect.objectContaining({ errorCode: 'InvalidClockAdvance' }));
    expect(clock.now()).toBe(OFFSET + 1500);
  });
});
