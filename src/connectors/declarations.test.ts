import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkConnectors, checkConnectorsText } from './declarations.js';
import { redactConfig, redactText, secretsOf } from '../model/redact.js';

const kafka = { 'bootstrap.servers': 'localhost:9092', topic: 'in' };

describe('connector declarations', () => {
  it('fills the defaults users leave out and keeps client options', () => {
    const r = checkConnectors(
      [
        {
          transport: { name: 'kafka_input', config: { ...kafka, 'session.timeout.ms': 6000 } },
          format: { name: 'json' },
        },
      ],
      'input',
    );
    expect(r).toEqual({
      ok: true,
      connectors: [
        {
          name: 'unnamed-0',
          paused: false,
          transport: {
            name: 'kafka_input',
            config: { ...kafka, start_from: 'earliest', 'session.timeout.ms': 6000 },
          },
          format: { name: 'json', config: { update_format: 'insert_delete', array: false } },
        },
      ],
    });
  });

  it('names the member at fault', () => {
    const bad = (decl: unknown, dir: 'input' | 'output' = 'input') => {
      const r = checkConnectors([decl], dir);
      return r.ok ? [] : r.errors;
    };
    expect(bad({ transport: { name: 'nope', config: {} } })[0]).toMatch(
      /^connectors\[0\]\.transport\.name: unknown input transport "nope"/,
    );
    expect(bad({ transport: { name: 'file_output', config: { path: 'x' } } })[0]).toMatch(/is an output transport/);
    expect(bad({ transport: { name: 'file_input', config: { path: 'x', folow: true } } })[0]).toBe(
      'connectors[0].transport.config: unknown member "folow"',
    );
    expect(bad({ transport: { name: 'kafka_input', config: { 'bootstrap.servers': 'h:1' } } })[0]).toMatch(
      /config\.topic: exactly one of "topic" or "topics"/,
    );
    expect(
      bad({ transport: { name: 'postgres_output', config: { uri: 'u', table: 't', mode: 'upsert' } } }, 'output')[0],
    ).toMatch(/config\.key: mode "upsert" needs "key"/);
    expect(bad({ transport: { name: 'datagen', config: {} }, format: { name: 'json' } })[0]).toMatch(/takes no format/);
    expect(bad({ transport: { name: 'file_input', config: { path: 'x' } }, format: { name: 'avro' } })[0]).toMatch(
      /format\.name: unknown format "avro"/,
    );
    const two = checkConnectors(
      [
        { name: 'a', transport: { name: 'file_input', config: { path: 'x' } } },
        { name: 'a', transport: { name: 'file_input', config: { path: 'y' } } },
      ],
      'input',
    );
    expect(two.ok ? [] : two.errors).toEqual(['connectors[1].name: "a" names two connectors']);
  });

  it('parser fuzz: any text gives connectors or errors naming "connectors", never a throw', () => {
    const member = fc.oneof(
      fc.constantFrom('name', 'transport', 'format', 'config', 'path', 'topic', 'plan', 'limit', 'uri', 'follow'),
      fc.string(),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.constantFrom('kafka_input', 'file_input', 'datagen', 'json', 'csv', 'file_output', 'postgres_output'),
        fc.dictionary(member, tie('v'), { maxKeys: 4 }),
        fc.array(tie('v'), { maxLength: 3 }),
      ),
    })).v;
    fc.assert(
      fc.property(
        fc.oneof(
          value.map((v) => JSON.stringify(v)),
          fc.string(),
        ),
        fc.constantFrom('input', 'output'),
        (text, dir) => {
          const r = checkConnectorsText(text, dir as 'input' | 'output');
          if (!r.ok) for (const e of r.errors) expect(e.startsWith('connectors')).toBe(true);
          else expect(Array.isArray(JSON.parse(text))).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('redaction', () => {
  it('masks secret members and URI passwords, and the secrets in a message', () => {
    const config = { uri: 'postgres://me:s3cr%40t@db:5432/x', 'sasl.password': 'pw1', topic: 'a' };
    expect(redactConfig(config)).toEqual({
      uri: 'postgres://me:<redacted>@db:5432/x',
      'sasl.password': '<redacted>',
      topic: 'a',
    });
    const secrets = secretsOf(config);
    expect(redactText('failed: postgres://me:s3cr@t@db and pw1', secrets)).toBe(
      'failed: postgres://me:<redacted>@db and <redacted>',
    );
  });
});
