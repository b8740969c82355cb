import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, forPipeline } from './logger.js';

/** A text logger writing into an array of chunks. */
function textLogger(service: 'manager' | 'pipeline') {
  const out: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out.push(chunk.toString('utf8'));
      done();
    },
  });
  const log = createLogger({ service, json: false, level: 'info', destination });
  return { log, text: () => out.join('') };
}

describe('text logs of a relayed pipeline event', () => {
  it("print the pipeline's own lines, each behind its name, not one escaped `line` string", () => {
    // What a pipeline process writes in text mode: a head line and its fields indented below.
    const pipeline = textLogger('pipeline');
    forPipeline(pipeline.log, { name: 'orders', id: '0190aaaa' }).info(
      { port: 8123 },
      'pipeline HTTP server listening',
    );
    const event = pipeline.text().trimEnd();
    expect(event.split('\n').length).toBeGreaterThan(2);

    const manager = textLogger('manager');
    forPipeline(manager.log, { name: 'orders', id: '0190aaaa' }).info({ line: event });
    const lines = manager.text().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^orders \| \[.*\] INFO: pipeline HTTP server listening$/);
    expect(lines).toContain('orders |     port: 8123');
    expect(lines).toContain('orders |     pipeline-id: "0190aaaa"');
    expect(lines.every((l) => l.startsWith('orders | '))).toBe(true);
    expect(manager.text()).not.toContain('line:');
    expect(manager.text()).not.toContain('pipeline-name');
  });

  it('leave every other record to the readable formatter', () => {
    const manager = textLogger('manager');
    manager.log.info({ lines: 3 }, 'a message with a member named like "line"');
    expect(manager.text()).toMatch(/INFO: a message with a member named like "line"\n {4}lines: 3\n$/);
  });
});
