import { describe, expect, it } from 'vitest';
import { isRawNumber, parseExact, parseSpelled } from './exact-json.js';

describe('parseExact', () => {
  it('keeps the digits of numbers a double does not hold, and writes them back the same', () => {
    const text =
      '{"z":-0,"zs":[-0.0],"id":9223372036854775807,"neg":-9007199254740993,"n":123456789012345678901234567890.123456789,' +
      '"big":1e400,"tiny":1e-400,"pi":3.14159265358979323846,"j":{"deep":[18446744073709551616]}}';
    const v = parseExact(text) as Record<string, unknown>;
    for (const key of ['z', 'id', 'neg', 'n', 'big', 'tiny', 'pi']) expect(isRawNumber(v[key])).toBe(true);
    expect(JSON.stringify(v)).toBe(text);
    expect((v['id'] as { rawJSON: string }).rawJSON).toBe('9223372036854775807');
  });

  it('leaves every number a double holds exactly a plain number', () => {
    const text =
      '[0,-0.5,1,1.5,0.1,1e21,2.5e-300,9007199254740991,-9007199254740991,123456789012345,1234567890.12345,1.10,1e308]';
    const v = parseExact(text) as unknown[];
    expect(v.every((x) => typeof x === 'number')).toBe(true);
    expect(v).toEqual(JSON.parse(text));
  });

  it('text that only looks long (digits in strings) parses as JSON.parse does', () => {
    const text = '{"s":"12345678901234567890","t":"1e400","u":[1,2,3],"v":0.000000000000000000001,"d":"2024-01-02"}';
    expect(parseExact(text)).toEqual(JSON.parse(text));
  });

  it('fails on what is not JSON, as JSON.parse does', () => {
    expect(() => parseExact('{"a":12345678901234567890')).toThrow(SyntaxError);
    expect(() => parseExact('{')).toThrow(SyntaxError);
  });
});

describe('parseSpelled (a checkpoint page)', () => {
  it('keeps every number spelled otherwise than its double writes it, and writes it back the same', () => {
    const text = '[{"a":[2.50,1.0,-0,1e3,0.10]},{"jb":{"x":2.50}},9223372036854775807,1.5,7,"2.50 in a string"]';
    const v = parseSpelled(text) as unknown[];
    expect(JSON.stringify(v)).toBe(text);
    const a = (v[0] as { a: unknown[] }).a;
    expect(a.every(isRawNumber)).toBe(true);
    expect(isRawNumber(v[2])).toBe(true);
    expect([v[3], v[4], v[5]]).toEqual([1.5, 7, '2.50 in a string']);
  });

  it('is parseExact where nothing is spelled otherwise', () => {
    const text = '[0,-0.5,1,1.5,0.1,2.5e-300,123456789012345678901234567890]';
    expect(JSON.stringify(parseSpelled(text))).toBe(JSON.stringify(parseExact(text)));
  });
});
