import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRecords } from './output-encode.js';
import { redactConfig, redactText, secretsOf } from '../model/redact.js';
import { clientOptions } from './transports/kafka-options.js';

const changes = [
  { weight: 1, row: { id: 1, s: 'a,b' } },
  { weight: -2, row: { id: 2, s: null } },
];

describe('output records', () => {
  it('json insert_delete repeats a row per unit of weight; weighted and raw; array wraps', () => {
    const json = (update_format: 'insert_delete' | 'raw' | 'weighted', array = false) =>
      encodeRecords({ name: 'json', config: { update_format, array } }, changes, ['id', 's']);
    expect(json('insert_delete')).toEqual([
      '{"insert":{"id":1,"s":"a,b"}}',
      '{"delete":{"id":2,"s":null}}',
      '{"delete":{"id":2,"s":null}}',
    ]);
    expect(json('weighted')).toEqual([
      '{"weight":1,"data":{"id":1,"s":"a,b"}}',
      '{"weight":-2,"data":{"id":2,"s":null}}',
    ]);
    expect(json('raw')).toEqual(['{"id":1,"s":"a,b"}']);
    expect(json('raw', true)).toEqual(['[{"id":1,"s":"a,b"}]']);
  });
  it('csv: the columns in order, the weight last', () => {
    expect(encodeRecords({ name: 'csv', config: { headers: false } }, changes, ['id', 's'])).toEqual([
      '1,"a,b",1',
      '2,,-2',
    ]);
  });
  it('csv: a column holding JSON is written as JSON text, so a string keeps its quotes', () => {
    const rows = [
      { weight: 1, row: { id: 4, j: 'x' } },
      { weight: 1, row: { id: 5, j: { a: [1, 'b'] } } },
    ];
    expect(encodeRecords({ name: 'csv', config: { headers: false } }, rows, ['id', 'j'], new Set(['j']))).toEqual([
      '4,"""x""",1',
      '5,"{""a"":[1,""b""]}",1',
    ]);
  });
  it('csv: a field with a line break stays inside its one record', () => {
    const broken = [{ weight: 1, row: { id: 3, s: 'two\nlines' } }];
    expect(encodeRecords({ name: 'csv', config: { headers: false } }, broken, ['id', 's'])).toEqual([
      '3,"two\nlines",1',
    ]);
  });
});

describe('kafka client options', () => {
  it('maps librdkafka names and reports the ones without a counterpart', () => {
    const { options, ignored } = clientOptions(
      {
        'bootstrap.servers': 'a:1, b:2',
        topic: 't',
        'client.id': 'me',
        'session.timeout.ms': 6000,
        'security.protocol': 'SASL_SSL',
        'sasl.mechanism': 'SCRAM-SHA-256',
        'sasl.username': 'u',
        'sasl.password': 'p',
        'fetch.wait.max.ms': 5,
      },
      'fallback',
    );
    expect(options).toMatchObject({
      clientId: 'me',
      bootstrapBrokers: ['a:1', 'b:2'],
      sessionTimeout: 6000,
      tls: {},
      sasl: { mechanism: 'SCRAM-SHA-256', username: 'u', password: 'p' },
    });
    expect(ignored).toEqual(['fetch.wait.max.ms']);
  });
});

describe('redaction fuzz', () => {
  it('a URI password or a secret member never survives in a redacted config or message', () => {
    const secret = fc.string({ minLength: 4, maxLength: 20 }).filter((s) => /^[A-Za-z0-9!$*+~-]+$/.test(s));
    fc.assert(
      fc.property(secret, secret, fc.string(), (pw, token, noise) => {
        const config = { uri: `postgres://user:${pw}@db:5432/x`, nested: { 'sasl.password': token } };
        const shown = JSON.stringify(redactConfig(config));
        expect(shown).not.toContain(`:${pw}@`);
        expect(shown).not.toContain(`"${token}"`);
        const message = redactText(
          `${noise} connect postgres://user:${pw}@db failed ${token} ${noise}`,
          secretsOf(config),
        );
        expect(message).not.toContain(pw);
        expect(message).not.toContain(token);
      }),
      { numRuns: 500 },
    );
  });
});
