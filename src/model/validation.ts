import type { z } from 'zod';
import { badRequest, type SvcError } from './errors.js';

// Turns a zod failure into the 400 error body of API.md, naming the field. The error code follows
// the first failing member: name, description and tag rules have codes of their own, runtime_config
// and program_config errors are InvalidRuntimeConfig / InvalidProgramConfig, the rest MalformedRequest.

type Issue = z.core.$ZodIssue;

/** `runtime_config.resources.cpu_cores_min`, `tags[3]`; unknown members are named themselves. */
export function fieldOf(issue: Issue, prefix: readonly PropertyKey[] = []): string {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) path.push(issue.keys[0] as string);
  return path.reduce<string>(
    (acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)),
    '',
  );
}

function describe(issue: Issue, field: string): string {
  if (issue.code === 'unrecognized_keys') {
    return `${issue.keys.map((k) => (field.endsWith(k) ? field : `${field}.${k}`)).join(', ')}: unknown member`;
  }
  return `${field || 'body'}: ${issue.message}`;
}

function codeFor(issue: Issue): string {
  const [head, second] = issue.path;
  switch (head) {
    case 'name':
      if (issue.code === 'invalid_type') return 'MalformedRequest';
      if (issue.code === 'too_small') return 'EmptyName';
      return issue.code === 'custom' ? 'TooLongName' : 'NameDoesNotMatchPattern';
    case 'description':
      return issue.code === 'too_big' ? 'TooLongDescription' : 'MalformedRequest';
    case 'tags':
      if (second === undefined) return issue.code === 'too_big' ? 'TooManyTags' : 'MalformedRequest';
      return 'InvalidTag';
    case 'runtime_config':
      return 'InvalidRuntimeConfig';
    case 'program_config':
      return 'InvalidProgramConfig';
    default:
      return 'MalformedRequest';
  }
}

/**
 * A union that failed in every branch reports only "Invalid input" at its own path. When a branch
 * got further into the value (`storage: true | {…}` given an object with one bad member), that
 * branch's issues are the useful ones: report them, under the union's path.
 */
function unwrapUnions(issue: Issue): Issue[] {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [issue];
  const depth = (branch: Issue[]) => Math.max(0, ...branch.map((i) => i.path.length));
  const deepest = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
  if (depth(deepest) === 0) return [issue];
  return deepest.flatMap((i) => unwrapUnions({ ...i, path: [...issue.path, ...i.path] } as Issue));
}

/** The error for a failed body parse. `prefix` places the schema inside the body (e.g. a sub-object). */
export function bodyError(error: z.ZodError, prefix: readonly PropertyKey[] = []): SvcError {
  const issues = error.issues.flatMap(unwrapUnions).map((i) => ({ ...i, path: [...prefix, ...i.path] }) as Issue);
  const first = issues[0];
  if (!first) return badRequest('MalformedRequest', 'Invalid request body');
  const errors = issues.map((i) => {
    const field = fieldOf(i);
    return { field, message: describe(i, field) };
  });
  const head = errors[0] ?? { field: '', message: 'invalid request body' };
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return badRequest(codeFor(first), `${head.message}${more}`, { field: head.field, errors });
}

/** Parses `input` or throws the 400 error body naming the failing field. */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw bodyError(result.error);
  return result.data;
}

/** Query parameters: each failure names its parameter; `selector` has its own code. */
export function parseQuery<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue ? fieldOf(issue) : '';
  const code = param === 'selector' ? 'InvalidSelector' : 'MalformedRequest';
  return failQuery(code, param, issue?.message ?? 'invalid');
}

function failQuery(code: string, param: string, message: string): never {
  throw badRequest(code, `query parameter '${param}': ${message}`, { parameter: param });
}
