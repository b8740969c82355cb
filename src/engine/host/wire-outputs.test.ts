import { describe, expect, it } from 'vitest';
import { replicaText, WireOutputs } from './wire-outputs.js';

// A step's outputs on the main thread: a view's changes are parsed from their text when first read
// (once), its presence and the views' names need no parse, and nothing can change them.

const OUTPUTS = [
  { view: 'a', changes: '[{"weight":1,"row":{"x":9223372036854775807}}]', count: 1 },
  { view: 'b', changes: 'not JSON: parsed only if read', count: 1 },
];

describe('WireOutputs', () => {
  it('parses a view when it is read, once, with exact numbers; names and presence without parsing', () => {
    const outputs = new WireOutputs(OUTPUTS);
    expect(outputs.size).toBe(2);
    expect(outputs.has('b')).toBe(true);
    expect(outputs.has('c')).toBe(false);
    expect([...outputs.keys()]).toEqual(['a', 'b']);
    const a = outputs.get('a');
    expect(JSON.stringify(a)).toBe('[{"weight":1,"row":{"x":9223372036854775807}}]');
    expect(outputs.get('a')).toBe(a);
    expect(outputs.get('c')).toBeUndefined();
    expect(() => outputs.get('b')).toThrow(SyntaxError);
    expect(() => [...outputs]).toThrow(SyntaxError);
  });

  it('iterates as a Map and refuses changes', () => {
    const outputs = new WireOutputs(OUTPUTS.slice(0, 1));
    expect([...outputs].map(([view, changes]) => [view, changes.length])).toEqual([['a', 1]]);
    expect([...outputs.values()]).toHaveLength(1);
    const seen: string[] = [];
    outputs.forEach((_changes, view) => seen.push(view));
    expect(seen).toEqual(['a']);
    expect(() => outputs.set()).toThrow(/read-only/);
    expect(() => outputs.delete()).toThrow(/read-only/);
  });

  it('gives the replica the [view, changes] text it parses, without parsing it here', () => {
    expect(replicaText(OUTPUTS.slice(0, 1))).toBe('[["a",[{"weight":1,"row":{"x":9223372036854775807}}]]]');
  });
});
