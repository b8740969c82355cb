import { describe, expect, it } from 'vitest';
import { extractField } from './extract.js';
import { type Numeric, numericText } from './numeric.js';
import { temporalComparator } from './temporal.js';
import { temporalCast } from './temporal-casts.js';
import { temporalLiteral } from './temporal-input.js';
import type { Value } from './types.js';

// The order of to_json's texts of dates and times. The property test (aggregate-temporal) checks
// it against PostgreSQL in the engine's session, whose time zone is UTC; offsets other than +00:00
// (a session in another zone) are checked here.

const opaque = (text: string): Value => ({ json: text, text: JSON.stringify(text) });
const sorted = (type: string, texts: string[]) => {
  const compare = temporalComparator({ base: 'opaque', name: type })!;
  return [...texts].sort((a, b) => compare(opaque(a), opaque(b)));
};

describe('temporalComparator', () => {
  it('orders dates across eras, long years and infinities', () => {
    const order = ['-infinity', '4713-01-01 BC', '0044-03-15 BC', '0001-12-31 BC', '0001-01-01', '2024-02-29'];
    const later = ['9999-12-31', '12345-01-01', '5874897-12-31', 'infinity'];
    expect(sorted('date', [...later, ...order].reverse())).toEqual([...order, ...later]);
  });

  it('orders timestamps to the microsecond, and timestamptz by the instant whatever the offset', () => {
    expect(
      sorted('timestamp(3) without time zone', [
        '2024-01-01T10:00:00.5',
        '2024-01-01T10:00:00.000001',
        '0044-03-15T23:59:59.999999 BC',
        '2024-01-01T10:00:00',
      ]),
    ).toEqual([
      '0044-03-15T23:59:59.999999 BC',
      '2024-01-01T10:00:00',
      '2024-01-01T10:00:00.000001',
      '2024-01-01T10:00:00.5',
    ]);
    // 01:00 at +05:00 is 20:00 UTC the day before; 23:00 at -08:00 is 07:00 UTC the next day.
    expect(
      sorted('timestamp with time zone', [
        '2023-12-31T23:00:00-08:00',
        '2024-01-01T01:00:00+05:00',
        '2023-12-31T21:00:00+00:00',
        '2023-12-31T20:30:00+05:53:28',
      ]),
    ).toEqual([
      '2023-12-31T20:30:00+05:53:28',
      '2024-01-01T01:00:00+05:00',
      '2023-12-31T21:00:00+00:00',
      '2023-12-31T23:00:00-08:00',
    ]);
    const compare = temporalComparator({ base: 'opaque', name: 'timestamp with time zone' })!;
    expect(compare(opaque('2024-01-01T05:00:00+05:00'), opaque('2024-01-01T00:00:00+00:00'))).toBe(0);
  });

  it("orders times up to 24:00:00, and leaves other types' order to others", () => {
    expect(sorted('time without time zone', ['24:00:00', '23:59:59.999999', '00:00:00'])).toEqual([
      '00:00:00',
      '23:59:59.999999',
      '24:00:00',
    ]);
    for (const name of ['time with time zone', 'interval', 'uuid', 'text'])
      expect(temporalComparator({ base: name === 'text' ? 'text' : 'opaque', name })).toBeUndefined();
  });

  it('EXTRACT of a timestamptz shown at another offset: its fields as shown, its epoch the instant', () => {
    const extract = (field: string, text: string) => numericText(extractField(field, true)!(opaque(text)) as Numeric);
    // 05:00 at +05:00 and 23:00 the day before at -01:00 are both midnight UTC.
    expect(extract('hour', '2024-01-01T05:00:00+05:00')).toBe('5');
    expect(extract('epoch', '2024-01-01T05:00:00+05:00')).toBe('1704067200.000000');
    expect(extract('epoch', '2023-12-31T23:00:00-01:00')).toBe('1704067200.000000');
    expect(extract('day', '2023-12-31T23:00:00-01:00')).toBe('31');
    expect(extract('epoch', '2024-01-01T00:00:00.5+00:00:30')).toBe('1704067170.500000');
  });
});

describe('casts and literals of dates and times', () => {
  const cast = (from: string, to: string) =>
    temporalCast({ base: 'opaque', name: from }, { base: 'opaque', name: to })!;

  it('reads the literals of a view text as to_json prints them', () => {
    expect(temporalLiteral('2024-01-01 10:00:00+00', 'timestamp with time zone')).toEqual(
      opaque('2024-01-01T10:00:00+00:00'),
    );
    expect(temporalLiteral('0044-03-15 10:00:00.5 BC', 'timestamp without time zone')).toEqual(
      opaque('0044-03-15T10:00:00.5 BC'),
    );
    expect(temporalLiteral('-infinity', 'date')).toEqual(opaque('-infinity'));
    // A BC value printed at another offset than UTC's (not the engine's session): not read here.
    expect(temporalLiteral('0044-03-15 10:00:00-08 BC', 'timestamp with time zone')).toBeUndefined();
  });

  // The first date is the first timestamp (4714-11-24 BC); the last date is far past the last timestamp.
  it('fails a date past the last timestamp as PostgreSQL does', () => {
    expect(cast('date', 'timestamp without time zone')(opaque('294276-12-31'))).toEqual(
      opaque('294276-12-31T00:00:00'),
    );
    expect(() => cast('date', 'timestamp with time zone')(opaque('294277-01-01'))).toThrow(
      expect.objectContaining({ code: '22008', message: 'date out of range for timestamp' }),
    );
    expect(cast('date', 'timestamp without time zone')(opaque('4714-11-24 BC'))).toEqual(
      opaque('4714-11-24T00:00:00 BC'),
    );
  });

  it('leaves a cast that rounds to a precision to PostgreSQL', () => {
    expect(
      temporalCast(
        { base: 'opaque', name: 'timestamp without time zone' },
        { base: 'opaque', name: 'timestamp(3) without time zone' },
      ),
    ).toBeUndefined();
  });
});
