import { scanSync } from 'libpg-query';
import { SourceMap } from '../sql/source-map.js';

// One SELECT … FROM … [WHERE …] [GROUP BY …] of a view's canonical text, by spans of the text: the
// select list, the FROM clause and the relation names in it, the WHERE clause, the GROUP BY keys,
// and the column equalities of its joins. What the maintenance rules splice their SQL into.

export interface Span {
  start: number;
  end: number;
}
/** A relation named in a FROM clause: the span of its name in the text, and how it is referred to. */
export interface Occurrence extends Span {
  relation: string;
  alias: string;
  hasAlias: boolean;
}
export interface Core {
  text: string;
  targets: Span;
  /** The select list's expressions without their `AS name`. */
  targetExprs: string[];
  from: Span;
  where?: Span;
  groupExprs: string[];
  occurrences: Occurrence[];
  /** Equalities of two columns in ON / WHERE: where indexes make a delta's lookups cheap. */
  equalities: { alias: string; column: string }[];
}

export type Node = Record<string, unknown>;
export const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null;

/** Every object node of the tree with its type name (the single key of `{Type: {...}}`). */
export function* walk(x: unknown): Generator<[string, Node]> {
  if (Array.isArray(x)) for (const y of x) yield* walk(y);
  else if (isNode(x))
    for (const [k, v] of Object.entries(x)) {
      if (isNode(v) && !Array.isArray(v) && /^[A-Z]/.test(k)) yield [k, v];
      yield* walk(v);
    }
}

export interface Token extends Span {
  text: string;
  depth: number;
}

export function tokensOf(text: string): Token[] {
  const map = new SourceMap(text);
  let depth = 0;
  return scanSync(text).tokens.map((t) => {
    const tok = { start: map.charOf(t.start), end: map.charOf(t.end), text: '', depth: 0 };
    tok.text = text.slice(tok.start, tok.end);
    if (tok.text === ')') depth -= 1;
    tok.depth = depth;
    if (tok.text === '(') depth += 1;
    return tok;
  });
}

/** Splits a span at its top-level commas, each part trimmed. */
function splitTop(text: string, tokens: Token[], span: Span): string[] {
  const cuts = tokens.filter((t) => t.depth === 0 && t.text === ',' && t.start >= span.start && t.end <= span.end);
  const bounds = [span.start, ...cuts.flatMap((c) => [c.start, c.end]), span.end];
  const parts: string[] = [];
  for (let i = 0; i < bounds.length; i += 2) parts.push(text.slice(bounds[i], bounds[i + 1]).trim());
  return parts;
}

const CLAUSES = ['FROM', 'WHERE', 'GROUP', 'HAVING', 'WINDOW', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'UNION'];

function occurrencesOf(text: string, fromClause: unknown, tokens: Token[]): Occurrence[] | string {
  const map = new SourceMap(text);
  const out: Occurrence[] = [];
  for (const [type, node] of walk(fromClause)) {
    if (type !== 'RangeVar') continue;
    if (node['schemaname'] !== undefined && node['schemaname'] !== 'public') return 'a relation of another schema';
    const relation = String(node['relname']);
    const alias = (node['alias'] as Node | undefined)?.['aliasname'];
    const start = map.charOf(Number(node['location']));
    const nameTok = tokens.findIndex((t) => t.start === start);
    const end = tokens[nameTok + (tokens[nameTok + 1]?.text === '.' ? 2 : 0)]?.end ?? start;
    const hasAlias = alias !== undefined;
    out.push({ relation, start, end, alias: hasAlias ? String(alias) : relation, hasAlias });
  }
  return out;
}

const sval = (n: unknown): unknown => (isNode(n) ? (n['String'] as Node | undefined)?.['sval'] : undefined);

/** `alias.column` (or `column` when the FROM has one relation), else undefined. */
function columnOf(side: unknown, occurrences: Occurrence[]): { alias: string; column: string } | undefined {
  const ref = isNode(side) ? (side['ColumnRef'] as Node | undefined) : undefined;
  const fields = ((ref?.['fields'] as unknown[] | undefined) ?? []).map(sval);
  if (fields.length === 2) return { alias: String(fields[0]), column: String(fields[1]) };
  const only = occurrences.length === 1 ? occurrences[0] : undefined;
  return fields.length === 1 && only ? { alias: only.alias, column: String(fields[0]) } : undefined;
}

function equalitiesOf(stmt: Node, occurrences: Occurrence[]): Core['equalities'] {
  const out: Core['equalities'] = [];
  for (const [type, node] of walk([stmt['fromClause'], stmt['whereClause']])) {
    const op = (node['name'] as unknown[] | undefined)?.map(sval);
    if (type !== 'A_Expr' || node['kind'] !== 'AEXPR_OP' || op?.length !== 1 || op[0] !== '=') continue;
    for (const side of [node['lexpr'], node['rexpr']]) {
      const column = columnOf(side, occurrences);
      if (column) out.push(column);
    }
  }
  return out;
}

const stripAs = (t: string): string => t.replace(/\s+AS\s+("(?:[^"]|"")+"|\w+)$/i, '').trim();

export function coreOf(text: string, stmt: Node, span: Span, tokens: Token[]): Core | string {
  const top = tokens.filter((t) => t.depth === 0 && t.start >= span.start && t.end <= span.end);
  const at = (word: string) => top.find((t) => t.text.toUpperCase() === word);
  const [select, second] = top;
  const from = at('FROM');
  if (select?.text.toUpperCase() !== 'SELECT' || !from) return 'no FROM clause';
  const next = (after: Token) =>
    top.find((t) => t.start > after.start && CLAUSES.includes(t.text.toUpperCase()))?.start ?? span.end;
  const afterSelect = second?.text.toUpperCase() === 'DISTINCT' ? second : select;
  const targets = { start: afterSelect.end, end: from.start };
  const where = at('WHERE');
  const by = at('BY');
  const occurrences = occurrencesOf(text, stmt['fromClause'], tokens);
  if (typeof occurrences === 'string') return occurrences;
  return {
    text,
    targets,
    targetExprs: splitTop(text, tokens, targets).map(stripAs),
    from: { start: from.start, end: next(from) },
    ...(where && { where: { start: where.end, end: next(where) } }),
    groupExprs: by ? splitTop(text, tokens, { start: by.end, end: next(by) }) : [],
    occurrences,
    equalities: equalitiesOf(stmt, occurrences),
  };
}
