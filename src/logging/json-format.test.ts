import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, forPipeline, forTarget } from './logger.js';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, destination };
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ALLOWED_TOP = new Set(['timestamp', 'level', 'target', 'fields', 'svc-service', 'pipeline-name', 'pipeline-id']);

describe('JSON log lines (seed 6.3)', () => {
  it('has timestamp, level, target, fields and svc-service, nothing else at the top level', () => {
    const { lines, destination } = capture();
    const log = forTarget(createLogger({ service: 'manager', json: true, level: 'trace', destination }), 'svc::test');
    log.info({ count: 3 }, 'hello %s', 'world');
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(line).sort()).toEqual(['fields', 'level', 'svc-service', 'target', 'timestamp']);
    expect(line).toMatchObject({
      level: 'INFO',
      target: 'svc::test',
      'svc-service': 'manager',
      fields: { message: 'hello world', count: 3 },
    });
    expect(line['timestamp']).toMatch(TIMESTAMP);
  });

  it('maps every level to its upper-case name (fatal is ERROR)', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'runner', json: true, level: 'trace', destination });
    log.trace('t');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    log.fatal('f');
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual([
      'TRACE',
      'DEBUG',
      'INFO',
      'WARN',
      'ERROR',
      'ERROR',
    ]);
  });

  it('adds pipeline-name and pipeline-id on lines about one pipeline', () => {
    const { lines, destination } = capture();
    const log = forTarget(createLogger({ service: 'manager', json: true, level: 'info', destination }), 'svc::api');
    forPipeline(log, { name: 'p1', id: '2d1c8a8e-6c1e-4b8a-9d7e-0f1e2d3c4b5a' }).info('pipeline created');
    expect(JSON.parse(lines[0] as string)).toEqual({
      timestamp: expect.stringMatching(TIMESTAMP),
      level: 'INFO',
      target: 'svc::api',
      'svc-service': 'manager',
      'pipeline-name': 'p1',
      'pipeline-id': '2d1c8a8e-6c1e-4b8a-9d7e-0f1e2d3c4b5a',
      fields: { message: 'pipeline created' },
    });
  });

  it('relayed pipeline output uses fields.line, not fields.message (rule 5)', () => {
    const { lines, destination } = capture();
    const log = forTarget(createLogger({ service: 'runner', json: true, level: 'info', destination }), 'svc::runner');
    log.info({ line: 'pipeline says hi' });
    expect((JSON.parse(lines[0] as string) as { fields: unknown }).fields).toEqual({ line: 'pipeline says hi' });
  });

  it('keeps foreign child bindings off the top level and serialises errors under fields', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'api-server', json: true, level: 'info', destination }).child({
      reqId: 'r1',
      target: 'svc::x',
    });
    log.error(new Error('boom'));
    log.warn({ error: new TypeError('bad') }, 'with error');
    const [a, b] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const line of [a, b]) for (const k of Object.keys(line ?? {})) expect(ALLOWED_TOP.has(k), k).toBe(true);
    expect(a?.['fields']).toMatchObject({ message: 'boom', err: { type: 'Error', message: 'boom' } });
    expect(b?.['fields']).toMatchObject({ message: 'with error', error: { type: 'TypeError', message: 'bad' } });
  });

  it('a line without a module logger still has a target', () => {
    const { lines, destination } = capture();
    createLogger({ service: 'manager', json: true, level: 'info', destination }).info('root');
    expect((JSON.parse(lines[0] as string) as { target: string }).target).toBe('svc');
  });

  it('timestamps never go backwards and carry microseconds', () => {
    const { lines, destination } = capture();
    const log = createLogger({ service: 'manager', json: true, level: 'info', destination });
    for (let i = 0; i < 200; i++) log.info('tick');
    const stamps = lines.map((l) => (JSON.parse(l) as { timestamp: string }).timestamp);
    expect([...stamps].sort()).toEqual(stamps);
    expect(new Set(stamps.map((s) => s.slice(-4, -1))).size).toBeGreaterThan(1);
  });

  it('without JSON the lines are readable text', () => {
    const { lines, destination } = capture();
    forTarget(createLogger({ service: 'manager', json: false, level: 'info', destination }), 'svc::test').info(
      'plain words',
    );
    expect(lines[0]).toContain('plain words');
    expect(lines[0]).toContain('svc::test');
    expect(() => JSON.parse(lines[0] as string)).toThrow();
  });
});
