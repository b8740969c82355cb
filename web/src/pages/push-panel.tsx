import { useState } from 'react';
import { pipelinePath } from '../api/client.ts';
import type { Relation } from '../api/types.ts';
import { useApi } from '../lib/api-context.ts';

/**
 * Rows pasted into a table (POST ingress): JSON (an array of rows, or one row a line) or CSV (no
 * header, the table's columns in order), as docs/data-path.md describes.
 */
export function PushPanel({ pipeline, tables }: { pipeline: string; tables: readonly Relation[] }) {
  const api = useApi();
  const [table, setTable] = useState(tables[0]?.name ?? '');
  const [format, setFormat] = useState<'json' | 'csv'>('json');
  const [text, setText] = useState('');
  const [answer, setAnswer] = useState<{ text: string; error: boolean }>();
  const push = async () => {
    const array = format === 'json' && text.trimStart().startsWith('[');
    const query = format === 'json' ? { format, update_format: 'raw', array } : { format };
    try {
      const res = await api.json<{ token: string }>(pipelinePath(pipeline, `/ingress/${encodeURIComponent(table)}`), {
        method: 'POST',
        query,
        body: text,
        contentType: format === 'json' ? 'application/json' : 'text/csv',
      });
      setAnswer({ text: `Pushed (token ${res.token.slice(0, 12)}…)`, error: false });
    } catch (e) {
      setAnswer({ text: e instanceof Error ? e.message : String(e), error: true });
    }
  };
  const columns = tables.find((t) => t.name === table)?.fields.map((f) => f.name) ?? [];
  return (
    <section className="panel" aria-label="Push rows">
      <h2>Push rows</h2>
      <div className="toolbar">
        <select aria-label="Table" value={table} onChange={(e) => setTable(e.target.value)}>
          {tables.map((t) => (
            <option key={t.name}>{t.name}</option>
          ))}
        </select>
        <select aria-label="Format" value={format} onChange={(e) => setFormat(e.target.value as 'json' | 'csv')}>
          <option value="json">JSON</option>
          <option value="csv">CSV</option>
        </select>
        <button onClick={() => void push()} disabled={!table || !text.trim()}>
          Push
        </button>
        {answer && (
          <span className={answer.error ? 'error' : 'answer'} role={answer.error ? 'alert' : 'status'}>
            {answer.text}
          </span>
        )}
      </div>
      <textarea
        aria-label="Rows to push"
        className="rows-input"
        spellCheck={false}
        value={text}
        onChange={(e) => setText(e.target.value)}
        placeholder={
          format === 'json'
            ? `[{${columns.map((c) => `"${c}": …`).join(', ')}}]  or one object a line`
            : `${columns.join(',')}  (no header)`
        }
      />
    </section>
  );
}
