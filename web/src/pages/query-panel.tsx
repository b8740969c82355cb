import { useState } from 'react';
import { pipelinePath } from '../api/client.ts';
import { columnsOf, Grid } from '../components/grid.tsx';
import { SqlEditor } from '../components/sql-editor.tsx';
import { useApi } from '../lib/api-context.ts';
import { download, toCsv } from '../lib/csv.ts';

type Row = Record<string, unknown>;

/** An ad-hoc query (GET query) into a grid; the same query downloaded as CSV or as Parquet. */
export function QueryPanel({ pipeline, initial }: { pipeline: string; initial: string }) {
  const api = useApi();
  const [sql, setSql] = useState(initial);
  const [rows, setRows] = useState<Row[]>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const path = pipelinePath(pipeline, '/query');
  const run = async () => {
    setBusy(true);
    try {
      const text = await api.text(path, { query: { sql, format: 'json' } });
      setRows(
        text
          .split('\n')
          .filter((l) => l.trim())
          .map((l) => JSON.parse(l) as Row),
      );
      setError('');
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  const columns = columnsOf(rows ?? []);
  const csv = () =>
    download(
      new Blob(
        [
          toCsv(
            columns.map((c) => c.key),
            rows ?? [],
          ),
        ],
        { type: 'text/csv' },
      ),
      `${pipeline}-query.csv`,
    );
  const parquet = async () => {
    try {
      download(
        await (await api.fetch(path, { query: { sql, format: 'parquet' } })).blob(),
        `${pipeline}-query.parquet`,
      );
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <section className="panel" aria-label="Ad-hoc query">
      <h2>Query</h2>
      <SqlEditor label="Ad-hoc query" value={sql} onChange={setSql} minHeight="4rem" />
      <div className="toolbar">
        <button onClick={() => void run()} disabled={busy || !sql.trim()}>
          Run query
        </button>
        <button onClick={csv} disabled={!rows?.length}>
          Download CSV
        </button>
        <button onClick={() => void parquet()} disabled={!sql.trim()}>
          Download Parquet
        </button>
        {rows && <span className="count">{rows.length} rows</span>}
        {error && (
          <span className="error" role="alert">
            {error}
          </span>
        )}
      </div>
      {rows && <Grid label="Query result" columns={columns} rows={rows} rowKey={(_r, i) => String(i)} height="20rem" />}
    </section>
  );
}
