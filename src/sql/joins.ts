import { parseSync } from 'libpg-query';

// Whether a statement joins relations: a JOIN clause, or a FROM list of more than one item (a
// comma join), anywhere in it (subqueries and CTEs included). Reading several tables is not the
// same thing: a UNION ALL of two tables reads both and joins neither.

type Node = unknown;

function joinsIn(node: Node): boolean {
  if (Array.isArray(node)) return node.some(joinsIn);
  if (typeof node !== 'object' || node === null) return false;
  const record = node as Record<string, unknown>;
  if ('JoinExpr' in record) return true;
  const select = record['SelectStmt'] as { fromClause?: unknown[] } | undefined;
  if (select && (select.fromClause?.length ?? 0) > 1) return true;
  return Object.values(record).some(joinsIn);
}

/** True when `sql` joins relations; false for text the parser refuses (its error is reported elsewhere). */
export function joinsRelations(sql: string): boolean {
  try {
    return joinsIn(parseSync(sql));
  } catch {
    return false;
  }
}
