import { useState } from 'react';
import { pipelinePath } from '../api/client.ts';
import type { PipelineRecord } from '../api/types.ts';
import { SqlEditor } from '../components/sql-editor.tsx';
import { Badge } from '../components/status.tsx';
import { useApi } from '../lib/api-context.ts';

const COMPILING = ['Pending', 'CompilingSql', 'SqlCompiled', 'CompilingRust'];

/** The SQL program: edited, saved (PATCH program_code), compiled by the server; its errors marked in place. */
export function ProgramTab({ p, onSaved }: { p: PipelineRecord; onSaved: () => void }) {
  const api = useApi();
  const saved = p.program_code ?? '';
  const [draft, setDraft] = useState(saved);
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  const dirty = draft !== saved;
  // The compiler's positions belong to the saved text: shown while the editor holds that text.
  const messages = dirty ? [] : (p.program_error?.sql_compilation?.messages ?? []);
  const save = async () => {
    setSaving(true);
    try {
      await api.json(pipelinePath(p.name), { method: 'PATCH', json: { program_code: draft } });
      setError('');
      onSaved();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };
  return (
    <section aria-label="Program">
      <div className="toolbar">
        <button onClick={() => void save()} disabled={!dirty || saving}>
          Save
        </button>
        <button className="link" onClick={() => setDraft(saved)} disabled={!dirty}>
          Revert
        </button>
        <span>
          Compile status: <Badge value={p.program_status} />
          {COMPILING.includes(p.program_status) && <span className="spinner" aria-hidden />}
        </span>
        {dirty && <span className="hint">unsaved changes</span>}
        {error && (
          <span className="error" role="alert">
            {error}
          </span>
        )}
      </div>
      <SqlEditor label="SQL program" value={draft} onChange={setDraft} messages={messages} minHeight="20rem" />
      {messages.length > 0 && (
        <ul className="messages" aria-label="Compiler messages">
          {messages.map((m, i) => (
            <li key={i} className={m.warning ? 'warning' : 'error'}>
              line {m.start_line_number}:{m.start_column} <strong>{m.error_type}</strong> {m.message}
            </li>
          ))}
        </ul>
      )}
      {p.program_error?.rust_compilation && (
        <pre className="error-block">{p.program_error.rust_compilation.stderr}</pre>
      )}
      {p.program_error?.system_error && <pre className="error-block">{p.program_error.system_error}</pre>}
    </section>
  );
}
