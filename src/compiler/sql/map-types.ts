import type { MapSpan, MapTypes } from '../../sql/dialect.js';
import { SourceMap } from '../../sql/source-map.js';
import { splitProgram } from '../../sql/split.js';
import type { Database } from '../../store/database.js';
import { isPgError } from './messages.js';

// MAP<K, V> runs as jsonb (src/sql/dialect.ts), but the established dialect reports it as a MAP with
// its key and value types, and its clients read program_info by them. In the scratch database only,
// each MAP is a domain over jsonb, svc_maps.mN, next to a table svc_maps.mN_kv (key K, value V)
// whose columns carry K and V: the catalog then names the map wherever a column has that type,
// views that pass the column on included, and the type resolver (column-type.ts) reads K and V
// back. The schema is outside `public`, so its tables are no relations of the program; the
// compilation's transaction is rolled back, so nothing of it stays.

export const MAP_SCHEMA = 'svc_maps';

/** `svc_maps.m3` → the table holding its key and value columns. */
export const MAP_DOMAIN = /^svc_maps\.(m\d+)$/;
export const kvTable = (id: string): string => `${MAP_SCHEMA}.${id}_kv`;

/** Declares the maps of one compilation (one per compilation: the names count up). */
export class MapDeclarer {
  private count = 0;

  constructor(private readonly db: Database) {}

  /** `sql` with each MAP's jsonb replaced by its domain (jsonb left where one cannot be declared). */
  async sqlFor(sql: string, maps: readonly MapSpan[]): Promise<string> {
    let out = sql;
    for (const m of [...maps].sort((a, b) => b.from - a.from)) {
      const domain = await this.declare(m);
      if (domain) out = out.slice(0, m.from) + domain + out.slice(m.to);
    }
    return out;
  }

  /**
   * Runs a statement with its maps declared; if it fails that way it is left to run as written
   * (jsonb), where its error, if any, is reported at the user's positions.
   */
  async exec(sql: string, maps: readonly MapSpan[]): Promise<boolean> {
    if (maps.length === 0) return false;
    await this.db.exec('SAVEPOINT svc_maps');
    try {
      await this.db.exec(await this.sqlFor(sql, maps));
      await this.db.exec('RELEASE SAVEPOINT svc_maps');
      return true;
    } catch (error) {
      await this.db.exec('ROLLBACK TO SAVEPOINT svc_maps');
      if (!isPgError(error)) throw error;
      return false;
    }
  }

  private async declare(m: MapTypes): Promise<string | undefined> {
    const id = `m${++this.count}`;
    // K and V are in the established dialect (STRING, nested MAPs, …): translated like a column's type.
    const text = `CREATE TABLE ${kvTable(id)} (key ${m.key}, value ${m.value})`;
    const [stmt] = splitProgram(text, new SourceMap(text)).statements;
    if (!stmt || stmt.refusals.length > 0) return undefined;
    await this.db.exec('SAVEPOINT svc_map');
    try {
      await this.db.exec(`CREATE SCHEMA IF NOT EXISTS ${MAP_SCHEMA}`);
      await this.db.exec(await this.sqlFor(stmt.sql, stmt.maps));
      await this.db.exec(`CREATE DOMAIN ${MAP_SCHEMA}.${id} AS jsonb`);
      await this.db.exec('RELEASE SAVEPOINT svc_map');
      return `${MAP_SCHEMA}.${id}`;
    } catch (error) {
      await this.db.exec('ROLLBACK TO SAVEPOINT svc_map');
      if (!isPgError(error)) throw error;
      return undefined;
    }
  }
}
