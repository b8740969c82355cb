// Reads a relation's connector declarations (the `connectors` property's JSON text) into checked
// connectors, or the reasons they are not: each reason names the member at fault by its path in the
// declaration (`connectors[0].transport.config.topic: …`). The compiler reports them at the
// property's position; the pipeline process reads program_info through the same function.
import type { z } from 'zod';
import { FORMATS, INPUT_TRANSPORTS, InputConnector, OUTPUT_TRANSPORTS, OutputConnector } from './schema.js';
import { redactText, secretsOf } from '../model/redact.js';
import { isObject, type JsonValue } from '../model/json.js';

export type Direction = 'input' | 'output';
export type Declared<D extends Direction> = D extends 'input' ? InputConnector : OutputConnector;
export type Checked<D extends Direction> = { ok: true; connectors: Declared<D>[] } | { ok: false; errors: string[] };

const pathText = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((acc, k) => (typeof k === 'number' ? `${acc}[${k}]` : `${acc}.${String(k)}`), 'connectors');

/** The names a declaration may use, checked first: zod's union error would not list them. */
function nameErrors(decl: unknown, index: number, direction: Direction): string[] {
  if (!isObject(decl)) return [];
  const errors: string[] = [];
  const transports: readonly string[] = direction === 'input' ? INPUT_TRANSPORTS : OUTPUT_TRANSPORTS;
  const other: readonly string[] = direction === 'input' ? OUTPUT_TRANSPORTS : INPUT_TRANSPORTS;
  const t = isObject(decl.transport) ? decl.transport.name : undefined;
  if (typeof t === 'string' && !transports.includes(t))
    errors.push(
      other.includes(t)
        ? `${pathText([index, 'transport', 'name'])}: "${t}" is an ${direction === 'input' ? 'output' : 'input'} transport; a ${direction === 'input' ? 'table' : 'view'} takes ${transports.join(', ')}`
        : `${pathText([index, 'transport', 'name'])}: unknown ${direction} transport "${t}" (expected one of ${transports.join(', ')})`,
    );
  const f = isObject(decl.format) ? decl.format.name : undefined;
  if (typeof f === 'string' && !FORMATS.includes(f as (typeof FORMATS)[number]))
    errors.push(
      `${pathText([index, 'format', 'name'])}: unknown format "${f}" (expected one of ${FORMATS.join(', ')})`,
    );
  return errors;
}

const ROW_TRANSPORTS = new Set(['datagen', 'postgres_input', 'postgres_output']);

function issueText(issue: z.core.$ZodIssue, index: number, secrets: string[]): string {
  const path = pathText([index, ...issue.path]);
  let message = issue.message;
  if (issue.code === 'unrecognized_keys') message = `unknown member ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
  return redactText(`${path}: ${message}`, secrets);
}

/** Checks one relation's declarations (already parsed JSON) for a table (`input`) or a view (`output`). */
export function checkConnectors<D extends Direction>(value: unknown, direction: D): Checked<D> {
  if (!Array.isArray(value)) return { ok: false, errors: ['connectors: must be a JSON array of connectors'] };
  const schema = direction === 'input' ? InputConnector : OutputConnector;
  const errors: string[] = [];
  const connectors: Declared<D>[] = [];
  const names = new Set<string>();
  value.forEach((decl: unknown, index) => {
    const named = nameErrors(decl, index, direction);
    if (named.length > 0) return void errors.push(...named);
    const parsed = schema.safeParse(decl);
    if (!parsed.success) {
      const secrets = secretsOf(decl);
      return void errors.push(...parsed.error.issues.map((i) => issueText(i, index, secrets)));
    }
    const c = parsed.data;
    if (c.format && ROW_TRANSPORTS.has(c.transport.name))
      return void errors.push(
        `${pathText([index, 'format'])}: ${c.transport.name} carries rows, not bytes: it takes no format`,
      );
    // The established ecosystem names a connector declared without a name `unnamed-{index}`.
    const name = c.name ?? `unnamed-${index}`;
    if (names.has(name)) return void errors.push(`${pathText([index, 'name'])}: "${name}" names two connectors`);
    names.add(name);
    connectors.push({ ...c, name } as Declared<D>);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, connectors };
}

/**
 * From the property's text: JSON first, then the declarations. `json` is the text parsed, as written
 * (what program_info keeps), so that the caller need not parse it again.
 */
export function checkConnectorsText<D extends Direction>(
  text: string,
  direction: D,
): Checked<D> & { json?: JsonValue } {
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (error) {
    return { ok: false, errors: [`connectors: not JSON: ${(error as Error).message}`] };
  }
  return { ...checkConnectors(json, direction), json };
}
