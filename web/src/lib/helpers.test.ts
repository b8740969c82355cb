import { describe, expect, it } from 'vitest';
import { toCsv } from './csv.ts';
import { controlOf, nonNull, setIn } from './json-schema.ts';
import { parseMetrics } from './prometheus.ts';
import { parseRoute } from './route.ts';
import { seriesOf, type Sample } from './samples.ts';

describe('the console helpers', () => {
  it('writes CSV per RFC 4180', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          { a: 'x,y', b: 'say "hi"' },
          { a: null, b: 2 },
        ],
      ),
    ).toBe('a,b\r\n"x,y","say ""hi"""\r\n,2\r\n');
  });

  it('reads the nullable members z.toJSONSchema writes as their controls', () => {
    const workers = { anyOf: [{ type: 'integer', minimum: 1, maximum: 65535 }, { type: 'null' }] };
    expect(nonNull(workers)).toEqual({ type: 'integer', minimum: 1, maximum: 65535 });
    expect(controlOf(workers)).toEqual({ kind: 'number', integer: true, min: 1, max: 65535 });
    expect(controlOf({ type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 })).toEqual({
      kind: 'number',
      integer: true,
    });
    expect(controlOf({ anyOf: [{ type: 'string', enum: ['a', 'b'] }, { type: 'null' }] })).toEqual({
      kind: 'enum',
      options: ['a', 'b'],
    });
    expect(controlOf({ type: 'array', items: {} })).toEqual({ kind: 'json' });
  });

  it('sets and unsets nested members without touching the rest', () => {
    const base = { workers: 4, resources: { cpu_cores_max: 2 } };
    expect(setIn(base, ['resources', 'cpu_cores_min'], 1)).toEqual({
      workers: 4,
      resources: { cpu_cores_max: 2, cpu_cores_min: 1 },
    });
    expect(setIn(base, ['resources', 'cpu_cores_max'], undefined)).toEqual({ workers: 4 });
    expect(base).toEqual({ workers: 4, resources: { cpu_cores_max: 2 } });
  });

  it('sums Prometheus samples by name over their labels', () => {
    const m = parseMetrics(
      '# HELP x\nsvc_pipeline_table_rows{table="a"} 2\nsvc_pipeline_table_rows{table="b"} 3\nup 1\n',
    );
    expect(m.get('svc_pipeline_table_rows')).toBe(5);
    expect(m.get('up')).toBe(1);
  });

  it('turns counters into rates between samples', () => {
    const s = (t: number, input: number): Sample => ({
      t,
      input,
      output: 0,
      steps: 0,
      stepMsTotal: 0,
      lastStepMs: 0,
      storageBytes: 0,
      rss: 0,
      heap: 0,
      tableRows: 0,
      checkpoints: 0,
    });
    expect(seriesOf([s(10, 0), s(12, 100), s(13, 100)]).inPerSec).toEqual([0, 50, 0]);
  });

  it('graphs the mean step time between samples, the last step when none ran', () => {
    const s = (t: number, steps: number, stepMsTotal: number, lastStepMs: number): Sample => ({
      t,
      input: 0,
      output: 0,
      steps,
      stepMsTotal,
      lastStepMs,
      storageBytes: 0,
      rss: 0,
      heap: 0,
      tableRows: 0,
      checkpoints: 0,
    });
    // 4 steps took 30 ms (7.5 each); then none ran: the last one's 9 ms stands.
    expect(seriesOf([s(1, 1, 2, 2), s(2, 5, 32, 9), s(3, 5, 32, 9)]).stepMs).toEqual([2, 7.5, 9]);
  });

  it('reads hash routes', () => {
    expect(parseRoute('#/pipelines/a%20b/data')).toEqual({ page: 'pipeline', name: 'a b', tab: 'data' });
    expect(parseRoute('#/pipelines/x/nope')).toEqual({ page: 'pipeline', name: 'x', tab: 'program' });
    expect(parseRoute('')).toEqual({ page: 'list' });
  });
});
