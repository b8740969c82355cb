import fc from 'fast-check';
import { FAILSAFE_SCHEMA, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { isTemplateError } from './errors.js';
import { isSafeValue, PLACEHOLDER_NAMES, type PlaceholderValues, substitute } from './placeholders.js';
import { renderTemplate } from './render.js';
import { MINIMAL, SOURCE, VALUES } from './template.fixture.js';

// Property tests of the template's two promises: it never fails with anything but a TemplateError, and
// a value that passes the character check is always (part of) one scalar, wherever the placeholder is.

/** Values from the safe set, biased toward what YAML treats specially at the start or end of a scalar. */
const tricky = fc.constantFrom('a:b', 'x:/y', '0x1F', 'true', 'null', '1e5', '_', '/', 'a%20', 'a~', 'z-', 'a...');
const safeValue = fc
  .oneof(fc.stringMatching(/^[A-Za-z0-9/_][A-Za-z0-9._:/@+=%~-]{0,20}$/), tricky, fc.constant(''))
  .filter(isSafeValue);

const anyValue = fc.oneof(safeValue, fc.string(), fc.string({ unit: 'binary', maxLength: 8 }));
const valuesOf = (value: fc.Arbitrary<string>): fc.Arbitrary<PlaceholderValues> =>
  fc.record(
    Object.fromEntries(PLACEHOLDER_NAMES.map((n) => [n, value])) as Record<
      keyof PlaceholderValues,
      fc.Arbitrary<string>
    >,
  );

/** Templates: arbitrary text, and edits of a valid one (chars inserted, deleted, lines swapped). */
const templateText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc
    .tuple(fc.nat(MINIMAL.length), fc.nat(20), fc.string({ maxLength: 10 }))
    .map(([at, cut, ins]) => MINIMAL.slice(0, at) + ins + MINIMAL.slice(at + cut)),
  fc
    .array(fc.constantFrom(...MINIMAL.split('\n'), '---', '- {id}', '{id}: {namespace}', '&a x', '*a', '? k'), {
      maxLength: 30,
    })
    .map((lines) => lines.join('\n')),
);

// Thousands of generated templates and values, CPU-bound: about a second each on an idle machine,
// several on a loaded 2-core one; vitest's 5 s default is no bound for that.
describe('renderTemplate (fuzz)', { timeout: 60_000 }, () => {
  it('returns a StatefulSet or throws a TemplateError, nothing else', () => {
    fc.assert(
      fc.property(templateText, fc.oneof(valuesOf(anyValue), fc.constant(VALUES)), (text, values) => {
        try {
          const sts = renderTemplate({ ...SOURCE, text }, values);
          expect(sts.apiVersion).toBe('apps/v1');
          expect(sts.kind).toBe('StatefulSet');
          expect(sts.spec?.template.spec?.containers.length).toBeGreaterThan(0);
        } catch (e) {
          if (!isTemplateError(e)) throw e;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('renders the minimal template with any safe values, each verbatim', () => {
    fc.assert(
      fc.property(valuesOf(safeValue), (values) => {
        const sts = renderTemplate({ ...SOURCE, text: MINIMAL }, values);
        expect(sts.spec?.template.spec?.containers[0]?.args?.[1]).toBe(`--initial=${values.deployment_initial}`);
      }),
      { numRuns: 500 },
    );
  });
});

/** Where a placeholder may sit in a template; `P` marks it. Each line is one top-level member. */
const POSITIONS = [
  'k: P',
  'k: --flag=P',
  "k: 'P'",
  'k: "P"',
  'k: pre P post',
  'k: P # a comment',
  'k: &anchor P',
  'k: !!str P',
  'k: [P, x]',
  'k: [a, --f=P]',
  'k: {a: P, b: c}',
  'k:\n  - P\n  - --x=P',
  'k:\n  P: v',
  'k:\n  - P: v',
  'k: |\n  text P more',
  'k: >-\n  P',
  'k: [\'P\', "P"]',
];

const SENTINEL = 'ZZSENTINELZZ';

/** Replaces the sentinel in every string of a parsed tree, keys included. */
function replaceIn(tree: unknown, value: string): unknown {
  if (typeof tree === 'string') return tree.split(SENTINEL).join(value);
  if (Array.isArray(tree)) return tree.map((t) => replaceIn(t, value));
  if (typeof tree === 'object' && tree !== null) {
    return Object.fromEntries(Object.entries(tree).map(([k, v]) => [replaceIn(k, value), replaceIn(v, value)]));
  }
  return tree;
}

describe('substitution of safe values (fuzz)', { timeout: 60_000 }, () => {
  it('never changes the parsed structure: the value only ever lands inside scalars', () => {
    const template = fc
      .uniqueArray(fc.constantFrom(...POSITIONS.keys()), { minLength: 1, maxLength: POSITIONS.length })
      .map((picks) => picks.map((p, i) => (POSITIONS[p] ?? '').replace(/^k/, `k${i}`)).join('\n'));
    fc.assert(
      // Non-empty: '' (allowed, for {storage_class_name}) leaves nothing where the value was, which is
      // the point of it; it can only make a scalar null or the YAML invalid, never add structure.
      fc.property(
        template,
        safeValue.filter((v) => v !== ''),
        (shape, value) => {
          const text = shape.replaceAll('P', '{binary_ref}');
          // FAILSAFE: every scalar a string, so "verbatim" means exactly the same characters.
          const parse = (t: string) => loadAll(t, { schema: FAILSAFE_SCHEMA });
          const expected = replaceIn(parse(substitute(text, { ...VALUES, binary_ref: SENTINEL })), value);
          expect(parse(substitute(text, { ...VALUES, binary_ref: value }))).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
