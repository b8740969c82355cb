import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDurationNanos, parseSizeBytes, UnitError } from './units.js';

// The grammar of the newer clients' duration and size strings (the runtime's, as the Python SDK
// implements it), checked on the SDK's own examples and fuzzed: never anything but a count or a
// UnitError.

describe('duration strings', () => {
  it.each([
    ['0', 0n],
    ['60s', 60_000_000_000n],
    ['+1h30m', 5_400_000_000_000n],
    ['500ms', 500_000_000n],
    ['1.5s', 1_500_000_000n],
    ['30d', 30n * 86_400n * 1_000_000_000n],
    ['1us', 1_000n],
    ['1\u00b5s', 1_000n],
    ['0.0000000005s', 1n],
    ['1m1s1ms', 61_001_000_000n],
  ])('%s is %d ns', (text, nanos) => {
    expect(parseDurationNanos(text)).toBe(nanos);
  });

  it.each(['', '-1s', '60', 's', '1x', '1.2.3s', '1 s', '+', '99999999999999999999999999999s'])(
    '%j is refused',
    (text) => {
      expect(() => parseDurationNanos(text)).toThrow(UnitError);
    },
  );
});

describe('size strings', () => {
  it.each([
    ['4096', false, 4096n],
    ['16G', false, 16_000_000_000n],
    ['4Gi', false, 4n << 30n],
    ['10MiB', false, 10n << 20n],
    ['1.5k', false, 1500n],
    ['+2M', true, 2_000_000n],
  ])('%s is %d bytes', (text, requireUnit, bytes) => {
    expect(parseSizeBytes(text, requireUnit)).toBe(bytes);
  });

  it.each([
    ['', false],
    ['-1', false],
    ['G', false],
    ['4X', false],
    ['16000', true],
    ['99999999999999999999999', false],
  ])('%j (unit required: %s) is refused', (text, requireUnit) => {
    expect(() => parseSizeBytes(text, requireUnit)).toThrow(UnitError);
  });
});

describe('fuzzed', () => {
  const near = fc.stringMatching(/^[+-]?[0-9]{0,25}(\.[0-9]{0,25})?(ns|us|ms|s|m|h|d|k|M|Gi|B|x| )?$/);
  it('parsers answer a non-negative count or a UnitError, nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(near, fc.string()), (text) => {
        for (const parse of [parseDurationNanos, (t: string) => parseSizeBytes(t, true), parseSizeBytes]) {
          try {
            expect(parse(text)).toBeGreaterThanOrEqual(0n);
          } catch (error) {
            expect(error).toBeInstanceOf(UnitError);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});
