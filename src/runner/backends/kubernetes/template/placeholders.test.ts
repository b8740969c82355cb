import { describe, expect, it } from 'vitest';
import { isTemplateError } from './errors.js';
import { checkValues, isSafeValue, PLACEHOLDER_NAMES, substitute } from './placeholders.js';
import { SOURCE, VALUES } from './template.fixture.js';

describe('substitute', () => {
  it.each([
    ['name: {id}', `name: ${VALUES.id}`],
    ['{namespace}/{namespace}', 'pipelines/pipelines'],
    ['--initial={deployment_initial}', '--initial=running'],
    ['class: {storage_class_name}.', 'class: .'],
    // Unknown words, and things that merely look like placeholders, stay as written.
    ['{unknown} {ID} { id } {id', '{unknown} {ID} { id } {id'],
    ['{{id}}', `{${VALUES.id}}`],
  ])('%s', (text, expected) => {
    expect(substitute(text, VALUES)).toBe(expected);
  });

  it('substitutes every one of the ten placeholders', () => {
    const text = PLACEHOLDER_NAMES.map((n) => `${n}={${n}}`).join('\n');
    const expected = PLACEHOLDER_NAMES.map((n) => `${n}=${VALUES[n]}`).join('\n');
    expect(substitute(text, VALUES)).toBe(expected);
  });

  it('does not substitute inside a substituted value (one pass)', () => {
    // Such a value is refused by checkValues anyway; substitution alone must not loop on it.
    expect(substitute('{id}', { ...VALUES, id: '{namespace}' })).toBe('{namespace}');
  });
});

describe('isSafeValue', () => {
  it.each([
    '',
    'pipeline-0b9c4d4e',
    'registry:5000/svc/img:tag@sha256:00ff',
    'http://host:8081/binary/a/1/b/c',
    '/var/lib/svc',
    'a=b+c%20~d',
    '_x',
    '0',
  ])('accepts %j', (v) => expect(isSafeValue(v)).toBe(true));

  it.each([
    'x\nkind: Pod',
    '*alias',
    '&anchor',
    '!!str',
    'a: b',
    'a:',
    '{}',
    '[a]',
    'a,b',
    'a b',
    ' a',
    "it's",
    '"q"',
    'a#b',
    '- a',
    '-a',
    '? a',
    '...',
    '.hidden',
    '~',
    '|',
    '>',
    '%YAML',
    '@x',
    'a\\b',
    'tab\there',
    'é',
  ])('refuses %j', (v) => expect(isSafeValue(v)).toBe(false));
});

describe('checkValues', () => {
  const injections = ['x\nkind: Pod', '*alias', 'a: b', '{}'];
  for (const name of PLACEHOLDER_NAMES) {
    it.each(injections)(`refuses {${name}} = %j with a TemplateError naming it`, (bad) => {
      let caught: unknown;
      try {
        checkValues(SOURCE, { ...VALUES, [name]: bad });
      } catch (e) {
        caught = e;
      }
      expect(isTemplateError(caught)).toBe(true);
      const err = caught as { status: number; message: string; details: Record<string, unknown> };
      expect(err.status).toBe(400);
      expect(err.message).toContain(`{${name}}`);
      expect(err.message).toContain(SOURCE.configMap);
      expect(err.details).toMatchObject({ config_map: SOURCE.configMap, key: SOURCE.key });
    });
  }

  it('accepts the usual values', () => {
    expect(() => checkValues(SOURCE, VALUES)).not.toThrow();
  });
});
