import { parseSync } from 'libpg-query';
import { type KeyedBy, outerJoinShape } from './outer-join.js';
import { type Core, coreOf, isNode, type Node, type Token, tokensOf, walk } from './view-core.js';

// The shape of a view's query, read from PostgreSQL's own canonical text of it (pg_get_viewdef:
// stars expanded, one spelling) with PostgreSQL's parser and scanner: which maintenance rule fits.
// Anything the rules do not cover is `recompute`, with the reason.

export type Shape =
  | { rule: 'linear'; arms: Core[] }
  | {
      rule: 'group';
      core: Core;
      keys: { expr: string; column: number }[];
      having: boolean;
      distinct: boolean;
      /** LEFT JOIN keyed by its join key: the touched keys are these columns of the inputs' deltas. */
      touchedBy?: KeyedBy[];
    }
  | { rule: 'recompute'; reason: string };

const recomputeBecause = (reason: string): Shape => ({ rule: 'recompute', reason });

/** Every relation name the query mentions, anywhere (CTE names included: they never resolve). */
export function mentioned(viewdef: string): string[] {
  const parsed = parseSync(viewdef.trim().replace(/;$/, '')) as unknown;
  return [...walk(parsed)].filter(([t]) => t === 'RangeVar').map(([, n]) => String(n['relname']));
}

const CLAUSES_REFUSED = ['withClause', 'windowClause', 'sortClause', 'limitCount', 'limitOffset', 'lockingClause'];

function clauseRefusal(stmt: Node, allowGroup: boolean): string | undefined {
  const refused = CLAUSES_REFUSED.find((clause) => stmt[clause] !== undefined);
  if (refused) return refused;
  if (stmt['valuesLists'] !== undefined) return 'VALUES';
  const distinct = stmt['distinctClause'];
  if (!allowGroup && (stmt['groupClause'] !== undefined || stmt['havingClause'] !== undefined)) return 'GROUP BY';
  if (!allowGroup && distinct !== undefined) return 'DISTINCT';
  if (Array.isArray(distinct) && distinct.some((d) => isNode(d) && Object.keys(d).length > 0)) return 'DISTINCT ON';
  return undefined;
}

const NODES_REFUSED: Record<string, string> = {
  SubLink: 'a subquery',
  RangeSubselect: 'a subquery in FROM',
  RangeFunction: 'a function in FROM',
  GroupingSet: 'grouping sets',
};

/** Refusals common to every rule, on one SelectStmt. */
function refusal(stmt: Node, allowGroup: boolean): string | undefined {
  const clause = clauseRefusal(stmt, allowGroup);
  if (clause) return clause;
  for (const [type, node] of walk(stmt)) {
    if (NODES_REFUSED[type]) return NODES_REFUSED[type];
    if (type === 'FuncCall' && node['over'] !== undefined) return 'a window function';
    if (type === 'JoinExpr' && (node['jointype'] !== 'JOIN_INNER' || node['usingClause'] || node['isNatural']))
      return 'an outer, natural or USING join';
  }
  return undefined;
}

function unionShape(text: string, stmt: Node, tokens: Token[]): Shape {
  const arms: Node[] = [];
  const collect = (s: Node): boolean => {
    if (s['op'] !== 'SETOP_UNION') return arms.push(s) > 0;
    return s['all'] === true && collect(s['larg'] as Node) && collect(s['rarg'] as Node);
  };
  if (!collect(stmt)) return recomputeBecause('UNION without ALL');
  const unions = tokens.filter((t) => t.depth === 0 && t.text.toUpperCase() === 'UNION');
  if (unions.length !== arms.length - 1) return recomputeBecause('a nested UNION');
  const afterAll = (u: Token) => tokens[tokens.indexOf(u) + 1]?.end ?? u.end;
  const bounds = [0, ...unions.flatMap((u) => [u.start, afterAll(u)]), text.length];
  const cores: Core[] = [];
  for (const [i, arm] of arms.entries()) {
    const why = refusal(arm, false);
    if (why) return recomputeBecause(why);
    const core = coreOf(text, arm, { start: bounds[2 * i]!, end: bounds[2 * i + 1]! }, tokens);
    if (typeof core === 'string') return recomputeBecause(core);
    cores.push(core);
  }
  return { rule: 'linear', arms: cores };
}

function groupShape(stmt: Node, core: Core, usesAggregate: boolean): Shape {
  const grouped = stmt['groupClause'] !== undefined;
  if (stmt['distinctClause'] !== undefined && (grouped || usesAggregate))
    return recomputeBecause('DISTINCT with aggregates');
  const keys: { expr: string; column: number }[] = [];
  for (const expr of grouped ? core.groupExprs : core.targetExprs) {
    const column = core.targetExprs.indexOf(expr);
    if (column < 0) return recomputeBecause(`GROUP BY ${expr} is not in the select list`);
    keys.push({ expr, column });
  }
  const having = stmt['havingClause'] !== undefined;
  return { rule: 'group', core, keys, having, distinct: stmt['distinctClause'] !== undefined };
}

function keyedOuterJoin(text: string, stmt: Node, tokens: Token[]): Shape | undefined {
  const outer = outerJoinShape(text, stmt, tokens, (s) => refusal(s, false));
  if (!outer) return undefined;
  const { core, key, touchedBy } = outer;
  return { rule: 'group', core, keys: [key], having: false, distinct: false, touchedBy };
}

function callsAggregate(stmt: Node, aggregates: ReadonlySet<string>): boolean {
  return [...walk(stmt)].some(
    ([t, n]) =>
      t === 'FuncCall' &&
      ((n['funcname'] as Node[] | undefined) ?? []).some((f) =>
        aggregates.has(String((f['String'] as Node)?.['sval'])),
      ),
  );
}

/** One SELECT (no set operation): linear, grouped, a keyed outer join, or recompute. */
function selectShape(text: string, stmt: Node, tokens: Token[], usesAggregate: boolean): Shape {
  const grouped = stmt['groupClause'] !== undefined || stmt['distinctClause'] !== undefined;
  const outer = grouped || usesAggregate ? undefined : keyedOuterJoin(text, stmt, tokens);
  if (outer) return outer;
  const why = refusal(stmt, grouped);
  if (why) return recomputeBecause(why);
  const core = coreOf(text, stmt, { start: 0, end: text.length }, tokens);
  if (typeof core === 'string') return recomputeBecause(core);
  if (grouped) return groupShape(stmt, core, usesAggregate);
  return usesAggregate ? recomputeBecause('an aggregate without GROUP BY') : { rule: 'linear', arms: [core] };
}

/** `aggregates`: names of the database's aggregate functions (the parser cannot tell them apart). */
export function viewShape(viewdef: string, aggregates: ReadonlySet<string>): Shape {
  const text = viewdef.trim().replace(/;$/, '');
  const parsed = parseSync(text) as { stmts?: { stmt?: Node }[] };
  const stmt = parsed.stmts?.[0]?.stmt?.['SelectStmt'] as Node | undefined;
  if (!stmt) return recomputeBecause('not a SELECT');
  const tokens = tokensOf(text);
  const usesAggregate = callsAggregate(stmt, aggregates);
  if (stmt['op'] === 'SETOP_UNION')
    return usesAggregate ? recomputeBecause('aggregates in a UNION') : unionShape(text, stmt, tokens);
  if (stmt['op'] !== undefined && stmt['op'] !== 'SETOP_NONE') return recomputeBecause('INTERSECT / EXCEPT');
  return selectShape(text, stmt, tokens, usesAggregate);
}
