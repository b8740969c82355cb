import type { JsonValue } from '../model/json.js';
import type { DumpedPage } from './dump.js';
import type { RowMaker } from './json-rows.js';
import type { NativeTable } from './native-table.js';

// The native tables' pages of a checkpoint, as dump.ts writes PGlite's (values as PostgreSQL's
// input reads them back: int8, numeric and float8 as strings): the rows, or the buffered input.
// Page by page: a table's rows are read back (from the shards too, workers/kept.ts) and written one
// page at a time (no step runs meanwhile), so a dump holds one page of them, not the whole table a
// second time.

export async function writePages(
  tables: Iterable<[string, { sqlJson: RowMaker; table: NativeTable }]>,
  section: 'table' | 'staged',
  emit: (page: DumpedPage) => Promise<void>,
  rows: number,
): Promise<void> {
  for (const [name, { sqlJson, table }] of tables) {
    let page: JsonValue[] = [];
    const flush = async () => {
      if (page.length > 0) await emit({ section, name, rows: page.length, json: JSON.stringify(page) });
      page = [];
    };
    for (const item of section === 'table' ? tableItems(sqlJson, table) : bufferedItems(sqlJson, table)) {
      page.push(item);
      if (page.length >= rows) await flush();
    }
    await flush();
  }
}

/** A table's buffered input as a checkpoint's items. */
function* bufferedItems(sqlJson: RowMaker, table: NativeTable): Generator<JsonValue> {
  for (const { weight, row } of table.bufferedChanges()) yield { weight, row: sqlJson(row) } as never;
}

/** A table's rows as a checkpoint's items, a row of n copies n times. */
function* tableItems(sqlJson: RowMaker, table: NativeTable): Generator<JsonValue> {
  for (const [row, n] of table.entries()) {
    const item = sqlJson(row) as never;
    for (let k = 0; k < n; k++) yield item;
  }
}
