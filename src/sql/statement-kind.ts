import { parseSync } from 'libpg-query';

// What a statement creates, from the real Postgres parser: the relation name (folded the way
// Postgres folds it) that its properties belong to, and whether it is transaction control, which
// would break the compilation's own transaction, or a function declared without a body.

export type StatementKind =
  | { kind: 'table' | 'view'; name: string }
  | { kind: 'transaction' }
  /** `CREATE FUNCTION … RETURNS …` with neither body nor language: a UDF the runtime must provide. */
  | { kind: 'udf'; name: string }
  /** A type of the program's own (CREATE TYPE, CREATE DOMAIN) or a function with a body. */
  | { kind: 'definition' }
  | { kind: 'other' };

interface RangeVar {
  relname?: string;
}
interface ParsedStatement {
  CreateStmt?: { relation?: RangeVar };
  ViewStmt?: { view?: RangeVar };
  CreateTableAsStmt?: { into?: { rel?: RangeVar } };
  TransactionStmt?: unknown;
  CreateEnumStmt?: unknown;
  CompositeTypeStmt?: unknown;
  CreateDomainStmt?: unknown;
  CreateRangeStmt?: unknown;
  DefineStmt?: { kind?: string };
  CreateFunctionStmt?: {
    funcname?: { String?: { sval?: string } }[];
    options?: { DefElem?: { defname?: string } }[];
    sql_body?: unknown;
  };
}

function bodylessFunction(s: ParsedStatement): string | undefined {
  const f = s.CreateFunctionStmt;
  if (!f || f.sql_body !== undefined) return undefined;
  const defined = (f.options ?? []).some((o) => o.DefElem?.defname === 'as' || o.DefElem?.defname === 'language');
  if (defined) return undefined;
  return (f.funcname ?? []).map((n) => n.String?.sval ?? '').join('.');
}

const definesType = (s: ParsedStatement): boolean =>
  Boolean(s.CreateEnumStmt ?? s.CompositeTypeStmt ?? s.CreateDomainStmt ?? s.CreateRangeStmt) ||
  s.DefineStmt?.kind === 'OBJECT_TYPE';

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
  const udf = bodylessFunction(stmt);
  if (udf !== undefined) return { kind: 'udf', name: udf };
  if (definesType(stmt) || stmt.CreateFunctionStmt) return { kind: 'definition' };
  const table = tableName(stmt);
  if (table) return { kind: 'table', name: table };
  const view = viewName(stmt);
  return view ? { kind: 'view', name: view } : { kind: 'other' };
}
