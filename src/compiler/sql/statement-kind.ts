import { parseSync } from 'libpg-query';

// What a statement creates, from the real Postgres parser: the relation name (folded the way
// Postgres folds it) that its properties belong to, and whether it is transaction control, which
// would break the compilation's own transaction.

export type StatementKind = { kind: 'table' | 'view'; name: string } | { kind: 'transaction' } | { kind: 'other' };

interface RangeVar {
  relname?: string;
}
interface ParsedStatement {
  CreateStmt?: { relation?: RangeVar };
  ViewStmt?: { view?: RangeVar };
  CreateTableAsStmt?: { into?: { rel?: RangeVar } };
  TransactionStmt?: unknown;
}

function parseOne(sql: string): ParsedStatement | undefined {
  try {
    return (parseSync(sql) as { stmts?: { stmt?: ParsedStatement }[] }).stmts?.[0]?.stmt;
  } catch {
    return undefined; // Postgres reports the syntax error when the statement runs.
  }
}

const tableName = (s: ParsedStatement): string | undefined => s.CreateStmt?.relation?.relname;
const viewName = (s: ParsedStatement): string | undefined =>
  s.ViewStmt?.view?.relname ?? s.CreateTableAsStmt?.into?.rel?.relname;

export function statementKind(sql: string): StatementKind {
  const stmt = parseOne(sql);
  if (!stmt) return { kind: 'other' };
  if (stmt.TransactionStmt) return { kind: 'transaction' };
  const table = tableName(stmt);
  if (table) return { kind: 'table', name: table };
  const view = viewName(stmt);
  return view ? { kind: 'view', name: view } : { kind: 'other' };
}
