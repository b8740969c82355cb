import { SourceMap } from '../sql/source-map.js';
import { splitProgram } from '../sql/split.js';
import { statementKind } from '../sql/statement-kind.js';

// The program as the engine runs it: the compiler's own splitter (so the process runs exactly the
// SQL the compiler checked), with one change: `CREATE MATERIALIZED VIEW` becomes a plain view. A
// PostgreSQL materialized view is a snapshot that never refreshes; in the program it means "kept
// and queryable", which the engine provides with its own state.

export interface LoadedStatement {
  sql: string;
  /** Set on statements that define a type or a function (a query replica needs them too). */
  defines?: boolean;
  /** Set on statements that create a table or view: its name as PostgreSQL folded it. */
  creates?: { kind: 'table' | 'view'; name: string; materialized: boolean };
}

export function programStatements(programCode: string): LoadedStatement[] {
  const { statements } = splitProgram(programCode, new SourceMap(programCode));
  return statements.map((stmt) => {
    const [first, second, third] = stmt.tokens;
    let sql = stmt.sql;
    let materialized = false;
    if (
      first?.text.toUpperCase() === 'CREATE' &&
      second?.text.toUpperCase() === 'MATERIALIZED' &&
      third?.text.toUpperCase() === 'VIEW'
    ) {
      const from = second.start - stmt.start;
      sql = sql.slice(0, from) + ' '.repeat(second.end - second.start) + sql.slice(second.end - stmt.start);
      materialized = true;
    }
    const kind = statementKind(sql);
    if (kind.kind === 'definition') return { sql, defines: true };
    if (kind.kind !== 'table' && kind.kind !== 'view') return { sql };
    // A table is queryable when declared `'materialized' = 'true'` (the established dialect).
    if (kind.kind === 'table') materialized = stmt.properties?.['materialized'] === 'true';
    return { sql, creates: { kind: kind.kind, name: kind.name, materialized } };
  });
}
