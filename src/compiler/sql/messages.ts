import type { SqlCompilerMessage } from '../../model/program.js';
import type { SourceMap } from '../../sql/source-map.js';
import type { Statement } from '../../sql/split.js';
import { conditionName } from '../../sql/sqlstate.js';

// Turns a Postgres error (or a finding of ours) into a contract message located in the program.

export interface PgError {
  message: string;
  code?: string;
  position?: string;
}

export const isPgError = (e: unknown): e is PgError =>
  e instanceof Error && (typeof (e as PgError).code === 'string' || typeof (e as PgError).position === 'string');

/** A message spanning program characters `from`..`to` (inclusive). */
export function messageAt(
  map: SourceMap,
  from: number,
  to: number,
  error_type: string,
  message: string,
  warning: boolean,
): SqlCompilerMessage {
  const start = map.lineColumn(from);
  const end = map.lineColumn(Math.max(from, to));
  return {
    start_line_number: start.line,
    start_column: start.column,
    end_line_number: end.line,
    end_column: end.column,
    error_type,
    message,
    snippet: map.snippet(start, end),
    warning,
  };
}

/** Where Postgres put the cursor: the token at its `position`, else the whole statement. */
export function errorMessage(map: SourceMap, stmt: Statement, error: PgError): SqlCompilerMessage {
  const type = conditionName(error.code);
  const position = Number(error.position);
  if (Number.isInteger(position) && position > 0) {
    const at = stmt.programOffset(position - 1);
    const token = stmt.tokens.find((t) => t.start === at);
    return messageAt(map, at, token ? token.end - 1 : at, type, error.message, false);
  }
  return messageAt(map, stmt.start, stmt.end - 1, type, error.message, false);
}
