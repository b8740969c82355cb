import { scanSync, type ScanToken } from 'libpg-query';
import type { JsonObject } from '../model/json.js';
import { applyEdits, dialectEdits, type MapSpan, type Refusal } from './dialect.js';
import type { SourceMap } from './source-map.js';

// Splits a program into statements with the real Postgres scanner (quotes, dollar quotes, comments
// and nested comments are its business, not a regex's), and takes out the `WITH ('k' = 'v', …)`
// relation properties, which are not Postgres: they are blanked in place. The established dialect's
// other constructs are translated (dialect.ts); `programOffset` maps a position in the statement
// PostgreSQL runs back into the user's program. A `LATENESS view.column expr;` statement (a hint to
// the established engine's state, with nothing to do in PostgreSQL) is left out.

export interface Statement {
  /** Character offsets of the statement in the program (without its `;`). */
  start: number;
  end: number;
  /** The statement text to run: the program's text with properties blanked and the dialect translated. */
  sql: string;
  /** Program character offset of character `i` (0-based) of `sql`. */
  programOffset: (i: number) => number;
  /** Constructs of the established dialect with no PostgreSQL equivalent. */
  refusals: Refusal[];
  /** The MAP<K, V> types of the statement: where their jsonb is in `sql`, and K and V as written. */
  maps: MapSpan[];
  properties: JsonObject | undefined;
  /** Tokens of the statement, character offsets. */
  tokens: { start: number; end: number; text: string }[];
}

export interface SplitProgram {
  statements: Statement[];
  /** Set when the scanner itself failed (e.g. an unterminated quote): the whole program is one statement. */
  scanFailed: boolean;
}

type Token = { start: number; end: number; text: string; kind: string };

const unquote = (text: string): string => text.slice(1, -1).replace(/''/g, "'");

/** `'k' = 'v'` at token `j`, or undefined. */
function pairAt(tokens: Token[], j: number): [string, string] | undefined {
  const [key, eq, value] = [tokens[j], tokens[j + 1], tokens[j + 2]];
  if (key?.kind !== 'SCONST' || eq?.text !== '=' || value?.kind !== 'SCONST') return undefined;
  return [unquote(key.text), unquote(value.text)];
}

/** Finds `WITH ( 'k' = 'v' [, …] )` from token `i`; returns its properties and last token index. */
function propertiesAt(tokens: Token[], i: number): { properties: JsonObject; last: number } | undefined {
  if (tokens[i]?.text.toUpperCase() !== 'WITH' || tokens[i + 1]?.text !== '(') return undefined;
  const properties: JsonObject = {};
  for (let j = i + 2; ; j += 4) {
    const pair = pairAt(tokens, j);
    if (!pair) return undefined;
    properties[pair[0]] = pair[1];
    const sep = tokens[j + 3]?.text;
    if (sep === ')') return { properties, last: j + 3 };
    if (sep !== ',') return undefined;
  }
}

const blank = (text: string): string => text.replace(/[^\n]/g, ' ');

const COMMENTS = new Set(['SQL_COMMENT', 'C_COMMENT']);

function toTokens(program: string, map: SourceMap): Token[] {
  const tokens = scanSync(program).tokens.filter((t: ScanToken) => !COMMENTS.has(t.tokenName));
  return tokens.map((t: ScanToken) => ({
    start: map.charOf(t.start),
    end: map.charOf(t.end),
    text: program.slice(map.charOf(t.start), map.charOf(t.end)),
    kind: t.tokenName,
  }));
}

function statementOf(program: string, tokens: Token[]): Statement {
  const first = tokens[0];
  const last = tokens[tokens.length - 1];
  const start = first?.start ?? 0;
  const end = last?.end ?? 0;
  let blanked = program.slice(start, end);
  let properties: JsonObject | undefined;
  const inProperties = new Set<number>();
  for (let i = 0; i < tokens.length; i++) {
    const found = propertiesAt(tokens, i);
    if (!found) continue;
    properties = { ...properties, ...found.properties };
    const from = (tokens[i]?.start ?? start) - start;
    const to = (tokens[found.last]?.end ?? end) - start;
    blanked = blanked.slice(0, from) + blank(blanked.slice(from, to)) + blanked.slice(to);
    for (let k = i; k <= found.last; k++) inProperties.add(k);
    i = found.last;
  }
  const { edits, refusals } = dialectEdits(tokens, (i) => inProperties.has(i));
  const { sql, programOffset, maps } = applyEdits(blanked, start, edits);
  return {
    start,
    end,
    sql,
    programOffset,
    refusals,
    maps,
    properties,
    tokens: tokens.map(({ start: s, end: e, text }) => ({ start: s, end: e, text })),
  };
}

const isLatenessStatement = (tokens: Token[]): boolean => tokens[0]?.text.toUpperCase() === 'LATENESS';

export function splitProgram(program: string, map: SourceMap): SplitProgram {
  let tokens: Token[];
  try {
    tokens = toTokens(program, map);
  } catch {
    // Postgres will report the lexical error itself, with its position, when the text runs.
    const trimmed = program.trim();
    if (trimmed === '') return { statements: [], scanFailed: true };
    const start = program.indexOf(trimmed);
    const end = start + trimmed.length;
    return {
      statements: [
        {
          start,
          end,
          sql: trimmed,
          programOffset: (i) => start + i,
          refusals: [],
          maps: [],
          properties: undefined,
          tokens: [],
        },
      ],
      scanFailed: true,
    };
  }
  const statements: Statement[] = [];
  let current: Token[] = [];
  for (const token of tokens) {
    if (token.text === ';') {
      if (current.length > 0 && !isLatenessStatement(current)) statements.push(statementOf(program, current));
      current = [];
    } else current.push(token);
  }
  if (current.length > 0 && !isLatenessStatement(current)) statements.push(statementOf(program, current));
  return { statements, scanFailed: false };
}
