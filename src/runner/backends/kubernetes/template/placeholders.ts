import { templateError, type TemplateSource } from './errors.js';

// Seed 2.6.3: the ten placeholders of a pipeline template, substituted as plain text before parsing.

export interface PlaceholderValues {
  id: string;
  namespace: string;
  pipeline_executor_image: string;
  binary_ref: string;
  program_info_ref: string;
  pipeline_storage_path: string;
  /** '' when no storage class applies: the template then reads `storageClassName:` (null, cluster default). */
  storage_class_name: string;
  deployment_id: string;
  deployment_initial: string;
  bootstrap_policy: string;
}

export const PLACEHOLDER_NAMES = [
  'id',
  'namespace',
  'pipeline_executor_image',
  'binary_ref',
  'program_info_ref',
  'pipeline_storage_path',
  'storage_class_name',
  'deployment_id',
  'deployment_initial',
  'bootstrap_policy',
] as const satisfies readonly (keyof PlaceholderValues)[];

/**
 * The characters a substituted value may use, so that no value can change the YAML around it: it is
 * always (part of) one scalar, whether the placeholder sits in a plain, single- or double-quoted scalar.
 * - no whitespace, quotes, `\`, `#`, `,`, `[]{}`: they end a scalar, start a comment or split a flow
 *   collection;
 * - the first character is a letter, digit, `/` or `_`, never an indicator (`-?:,[]{}#&*!|>'"%@` and
 *   `~`), nor `.` (a value `...` at the start of a line would end the document);
 * - no trailing `:`, which turns `- value:` into a mapping.
 * Image references, URLs of the artifact server, paths, UUIDs and names all fit.
 */
const SAFE_VALUE = /^$|^[A-Za-z0-9/_][A-Za-z0-9._:/@+=%~-]*$/;

export const isSafeValue = (value: string): boolean => SAFE_VALUE.test(value) && !value.endsWith(':');

/** Throws a TemplateError naming the first placeholder whose value is outside the safe set. */
export function checkValues(source: TemplateSource, values: PlaceholderValues): void {
  for (const name of PLACEHOLDER_NAMES) {
    const value: unknown = values[name];
    if (typeof value !== 'string' || !isSafeValue(value)) {
      throw templateError(
        source,
        `the value of placeholder {${name}} (${JSON.stringify(value)}) contains characters that could ` +
          'change the YAML structure; allowed: letters, digits and ._:/@+=%~- (not first: .:@+=%~-; not last: :)',
      );
    }
  }
}

const PLACEHOLDER = /\{([a-z_]+)\}/g;
const KNOWN = new Set<string>(PLACEHOLDER_NAMES);

/**
 * Plain string substitution in one pass, so a value that itself reads `{id}` is not substituted again
 * (the safe set excludes braces anyway). Unknown `{word}`s stay as written (seed 2.6.3).
 */
export function substitute(text: string, values: PlaceholderValues): string {
  return text.replace(PLACEHOLDER, (whole, name: string) =>
    KNOWN.has(name) ? values[name as keyof PlaceholderValues] : whole,
  );
}
