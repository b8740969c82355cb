// SQL text helpers shared by the engine's modules. Relations keep the catalog's spelling; every name
// the engine writes is quoted, so a program's "Quoted" names and odd characters survive.

export const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
export const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** Schemas the engine keeps beside the program's `public`: staged input, per-step deltas, view state. */
export const STAGE = 'svc_in';
export const DELTA = 'svc_delta';
export const STATE = 'svc_state';

/** Weight column of staging and delta tables (a name no program column is expected to take). */
export const W = '__svc_w';
/** Arrival order of staged changes (for tables with a primary key, the last change of a key wins). */
export const ORD = '__svc_ord';

export const inSchema = (schema: string, name: string): string => `${quote(schema)}.${quote(name)}`;
export const columnList = (columns: readonly { name: string }[], prefix = ''): string =>
  columns.map((c) => `${prefix}${quote(c.name)}`).join(', ');
