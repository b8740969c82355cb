import { loadModule } from 'libpg-query';
import type { JsonObject, JsonValue } from '../../model/json.js';
import type { ProgramInfo, Relation, SqlCompilerMessage } from '../../model/program.js';
import type { Database } from '../../store/database.js';
import { checkConnectorsText } from '../../connectors/declarations.js';
import { readCatalog, type CatalogRelation } from './catalog.js';
import { MapDeclarer } from './map-types.js';
import { errorMessage, isPgError, messageAt } from './messages.js';
import type { Scratch } from './scratch.js';
import { SourceMap } from '../../sql/source-map.js';
import { splitProgram, type Statement } from '../../sql/split.js';
import { statementKind } from '../../sql/statement-kind.js';
import { joinsRelations } from '../../sql/joins.js';

// Stage 1 of the compiler: run the program's DDL statement by statement in the scratch database
// (each behind a savepoint, so one failure does not hide the next), then read program_info from
// the catalog. The transaction is always rolled back.

export type SqlResult =
  { ok: true; info: ProgramInfo; warnings: SqlCompilerMessage[] } | { ok: false; messages: SqlCompilerMessage[] };

interface Created {
  kind: 'table' | 'view';
  stmt: Statement;
  properties: JsonObject | undefined;
}

const parserReady = loadModule();

// A body-less function gets a placeholder body in the scratch database only, so the views that call
// it can be planned; the declaration goes to udf_stubs.
const STUB_BODY = ' LANGUAGE plpgsql AS $svc_stub$ BEGIN RETURN NULL; END $svc_stub$';

const MISSING_RELATION = /^relation "([^"]+)" does not exist$/;

/** The established dialect's constructs with no PostgreSQL equivalent (src/sql/dialect.ts), as errors. */
function refused(map: SourceMap, stmt: Statement, messages: SqlCompilerMessage[]): boolean {
  for (const r of stmt.refusals)
    messages.push(messageAt(map, r.from, r.to - 1, 'feature_not_supported', r.message, false));
  return stmt.refusals.length > 0;
}

/** A table or view that was not created: statements that only fail for want of it are not errors. */
function markFailed(what: ReturnType<typeof statementKind>, failed: Set<string>): void {
  if (what.kind === 'table' || what.kind === 'view') failed.add(what.name);
}

/** Runs each statement; returns the error messages and what each successful statement created. */
async function runStatements(db: Database, map: SourceMap, statements: Statement[]) {
  const messages: SqlCompilerMessage[] = [];
  const created = new Map<string, Created>();
  const failed = new Set<string>();
  const stubs: string[] = [];
  const maps = new MapDeclarer(db);
  for (const stmt of statements) {
    const what = statementKind(stmt.sql);
    if (what.kind === 'transaction') {
      messages.push(
        messageAt(
          map,
          stmt.start,
          stmt.end - 1,
          'feature_not_supported',
          'transaction control is not allowed in a program',
          false,
        ),
      );
      continue;
    }
    if (refused(map, stmt, messages)) {
      markFailed(what, failed);
      continue;
    }
    await db.exec('SAVEPOINT stmt');
    try {
      const sql = what.kind === 'udf' ? stmt.sql + STUB_BODY : stmt.sql;
      if (!(await maps.exec(sql, stmt.maps))) await db.exec(sql);
      await db.exec('RELEASE SAVEPOINT stmt');
      if (what.kind === 'udf') stubs.push(`${stmt.sql.trim()};`);
      else if (what.kind === 'table' || what.kind === 'view')
        created.set(what.name, { kind: what.kind, stmt, properties: stmt.properties });
    } catch (error) {
      await db.exec('ROLLBACK TO SAVEPOINT stmt');
      if (!isPgError(error)) throw error;
      markFailed(what, failed);
      // A statement that only fails because an earlier one did is not another error.
      const missing = MISSING_RELATION.exec(error.message)?.[1];
      if (missing !== undefined && failed.has(missing)) continue;
      messages.push(errorMessage(map, stmt, error));
    }
  }
  return { messages, created, stubs };
}

const stubText = (stubs: string[]): string =>
  stubs.length === 0
    ? ''
    : `-- Functions declared without a body: user-defined functions the runtime must provide.\n${stubs.join('\n')}\n`;

/** Where the `'connectors' = '…'` property is in the statement: its key to the end of its value. */
function propertySpan(stmt: Statement): [number, number] {
  const k = stmt.tokens.findIndex((t) => t.text.toLowerCase() === "'connectors'");
  const value = stmt.tokens[k + 2];
  return k >= 0 && value ? [stmt.tokens[k]?.start ?? stmt.start, value.end - 1] : [stmt.start, stmt.end - 1];
}

/** The relation's connectors, checked (src/connectors/declarations.ts); each error at the property. */
function connectorsOf(
  map: SourceMap,
  rel: Created,
  name: string,
  messages: SqlCompilerMessage[],
): JsonValue | undefined {
  const text = rel.properties?.['connectors'];
  if (typeof text !== 'string') return undefined;
  const checked = checkConnectorsText(text, rel.kind === 'table' ? 'input' : 'output');
  if (checked.ok) return checked.json;
  const [from, to] = propertySpan(rel.stmt);
  for (const error of checked.errors)
    messages.push(
      messageAt(
        map,
        from,
        to,
        'invalid property',
        `connectors of "${name}": ${error.replace(/^connectors(: )?/, '')}`,
        false,
      ),
    );
  return undefined;
}

/** Tables without a primary key that a view joins with another relation (reading two is not joining them). */
function joinWarnings(
  map: SourceMap,
  relations: CatalogRelation[],
  created: Map<string, Created>,
): SqlCompilerMessage[] {
  const byName = new Map(relations.map((r) => [r.name, r]));
  const warned = new Set<string>();
  const warnings: SqlCompilerMessage[] = [];
  const joining = relations.filter(
    (r) => r.kind === 'view' && r.readsTables.length > 1 && joinsRelations(created.get(r.name)?.stmt.sql ?? ''),
  );
  for (const view of joining)
    for (const table of view.readsTables) {
      const stmt = created.get(table)?.stmt;
      if (warned.has(table) || byName.get(table)?.primary_key || !stmt) continue;
      warned.add(table);
      const message = `table "${table}" has no primary key and is joined in view "${view.name}"`;
      warnings.push(messageAt(map, stmt.start, stmt.end - 1, 'no primary key', message, true));
    }
  return warnings;
}

const toRelation = (
  { kind: _kind, readsTables: _reads, ...relation }: CatalogRelation,
  properties?: JsonObject,
): Relation => (properties ? { ...relation, properties } : relation);

export async function compileSql(scratch: Scratch, program: string): Promise<SqlResult> {
  await parserReady;
  const map = new SourceMap(program);
  const { statements } = splitProgram(program, map);
  return scratch.use(async (db) => {
    await db.exec('BEGIN');
    try {
      const { messages, created, stubs } = await runStatements(db, map, statements);
      const relations = await readCatalog(db);
      const info: ProgramInfo = {
        input_connectors: {},
        output_connectors: {},
        schema: { inputs: [], outputs: [] },
        udf_stubs: stubText(stubs),
      };
      for (const r of relations) {
        const source = created.get(r.name);
        const connectors = source && connectorsOf(map, source, r.name, messages);
        const relation = toRelation(r, source?.properties);
        if (r.kind === 'table') info.schema.inputs.push(relation);
        else info.schema.outputs.push(relation);
        if (connectors !== undefined)
          (r.kind === 'table' ? info.input_connectors : info.output_connectors)[r.name] = connectors;
      }
      if (messages.length > 0) return { ok: false, messages };
      return { ok: true, info, warnings: joinWarnings(map, relations, created) };
    } finally {
      await db.exec('ROLLBACK');
    }
  });
}
