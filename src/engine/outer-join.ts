import { type Core, coreOf, isNode, type Node, type Token } from './view-core.js';

// LEFT JOIN on one column equality (`FROM a LEFT JOIN b ON a.x = b.y`, the left key selected): the
// rows of the view that come from left rows with key k depend only on the left rows and right rows
// of that key. So a step takes out of the state the rows of the keys its deltas touch (x of Δa, y
// of Δb) and evaluates the view again for those keys only: the group rule, keyed by the join key.

export interface KeyedBy {
  relation: string;
  column: string;
}

const sval = (n: unknown): string | undefined =>
  isNode(n) ? ((n['String'] as Node | undefined)?.['sval'] as string | undefined) : undefined;

function columnRef(x: unknown): [string, string] | undefined {
  const ref = isNode(x) ? (x['ColumnRef'] as Node | undefined) : undefined;
  const fields = ((ref?.['fields'] as unknown[] | undefined) ?? []).map(sval);
  return fields.length === 2 && fields[0] && fields[1] ? [fields[0], fields[1]] : undefined;
}

function side(x: unknown): { relation: string; alias: string } | undefined {
  const r = isNode(x) ? (x['RangeVar'] as Node | undefined) : undefined;
  if (!r || (r['schemaname'] !== undefined && r['schemaname'] !== 'public')) return undefined;
  const alias = sval({ String: { sval: (r['alias'] as Node | undefined)?.['aliasname'] } }) ?? String(r['relname']);
  return { relation: String(r['relname']), alias };
}

interface Join {
  join: Node;
  left: { relation: string; alias: string };
  right: { relation: string; alias: string };
  leftColumn: string;
  rightColumn: string;
}

/** The single JoinExpr of the FROM clause when it is a plain LEFT JOIN. */
function plainLeftJoin(stmt: Node): Node | undefined {
  const from = stmt['fromClause'] as unknown[] | undefined;
  const join = from?.length === 1 && isNode(from[0]) ? (from[0]['JoinExpr'] as Node | undefined) : undefined;
  const plain = join?.['jointype'] === 'JOIN_LEFT' && !join['usingClause'] && !join['isNatural'] && !join['alias'];
  return plain ? join : undefined;
}

/** The ON clause when it is one `=` of two columns: [left, right] references. */
function equality(quals: unknown): [unknown, unknown] | undefined {
  const expr = isNode(quals) ? (quals['A_Expr'] as Node | undefined) : undefined;
  const op = (expr?.['name'] as unknown[] | undefined)?.map(sval).join();
  return expr?.['kind'] === 'AEXPR_OP' && op === '=' ? [expr['lexpr'], expr['rexpr']] : undefined;
}

/** `a LEFT JOIN b ON a.x = b.y` as the whole FROM clause, or undefined. */
function leftJoin(stmt: Node): Join | undefined {
  const join = plainLeftJoin(stmt);
  const [left, right] = [side(join?.['larg']), side(join?.['rarg'])];
  const sides = equality(join?.['quals']);
  if (!join || !left || !right || left.alias === right.alias || !sides) return undefined;
  const refs = sides.map(columnRef);
  const l = refs.find((r) => r?.[0] === left.alias);
  const r = refs.find((x) => x?.[0] === right.alias);
  return l && r ? { join, left, right, leftColumn: l[1], rightColumn: r[1] } : undefined;
}

/** The keyed shape of a LEFT JOIN view, or undefined when it is not one (other rules then decide). */
export function outerJoinShape(
  text: string,
  stmt: Node,
  tokens: Token[],
  refusal: (stmt: Node) => string | undefined,
): { core: Core; key: { expr: string; column: number }; touchedBy: KeyedBy[] } | undefined {
  const found = leftJoin(stmt);
  if (!found) return undefined;
  const { join, left, right, leftColumn, rightColumn } = found;
  // Every other refusal of the rules, as if the join were inner.
  if (refusal({ ...stmt, fromClause: [{ JoinExpr: { ...join, jointype: 'JOIN_INNER' } }] })) return undefined;
  const core = coreOf(text, stmt, { start: 0, end: text.length }, tokens);
  if (typeof core === 'string') return undefined;
  const column = core.targetExprs.findIndex((t) => t.replace(/"/g, '') === `${left.alias}.${leftColumn}`);
  if (column < 0) return undefined;
  return {
    core,
    key: { expr: core.targetExprs[column]!, column },
    touchedBy: [
      { relation: left.relation, column: leftColumn },
      { relation: right.relation, column: rightColumn },
    ],
  };
}
