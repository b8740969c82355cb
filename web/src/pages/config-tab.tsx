import { useState } from 'react';
import { ApiError, pipelinePath } from '../api/client.ts';
import type { PipelineRecord } from '../api/types.ts';
import { ConfigForm } from '../components/config-form.tsx';
import { useApi } from '../lib/api-context.ts';

type Json = Record<string, unknown>;

/** runtime_config as a form (generated from the API's schema) or as raw JSON; saved with PATCH. */
export function ConfigTab({ p, onSaved }: { p: PipelineRecord; onSaved: () => void }) {
  const api = useApi();
  const [draft, setDraft] = useState<Json>(() => ({ ...(p.runtime_config ?? {}) }));
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [raw, setRaw] = useState('');
  const [rawError, setRawError] = useState('');
  const [answer, setAnswer] = useState<{ text: string; error: boolean }>();
  const toJson = () => {
    setRaw(JSON.stringify(draft, null, 2));
    setRawError('');
    setMode('json');
  };
  const toForm = () => {
    try {
      setDraft(JSON.parse(raw) as Json);
      setMode('form');
    } catch (e) {
      setRawError(String(e));
    }
  };
  const save = async () => {
    let body = draft;
    if (mode === 'json') {
      try {
        body = JSON.parse(raw) as Json;
      } catch (e) {
        return setRawError(String(e));
      }
    }
    try {
      await api.json(pipelinePath(p.name), { method: 'PATCH', json: { runtime_config: body } });
      setAnswer({ text: 'Saved', error: false });
      onSaved();
    } catch (e) {
      const field = e instanceof ApiError ? e.body?.details?.['field'] : undefined;
      setAnswer({
        text: `${e instanceof Error ? e.message : String(e)}${typeof field === 'string' ? ` (${field})` : ''}`,
        error: true,
      });
    }
  };
  return (
    <section aria-label="Runtime configuration">
      <div className="toolbar">
        <button
          className={mode === 'form' ? 'chip active' : 'chip'}
          onClick={() => (mode === 'json' ? toForm() : undefined)}
        >
          Form
        </button>
        <button
          className={mode === 'json' ? 'chip active' : 'chip'}
          onClick={() => (mode === 'form' ? toJson() : undefined)}
        >
          JSON
        </button>
        <button onClick={() => void save()}>Save</button>
        {answer && (
          <span className={answer.error ? 'error' : 'answer'} role={answer.error ? 'alert' : 'status'}>
            {answer.text}
          </span>
        )}
      </div>
      {mode === 'form' ? (
        <ConfigForm value={draft} onChange={setDraft} />
      ) : (
        <>
          <textarea
            className="raw-json"
            aria-label="runtime_config JSON"
            value={raw}
            onChange={(e) => setRaw(e.target.value)}
            spellCheck={false}
          />
          {rawError && <p className="error">{rawError}</p>}
        </>
      )}
    </section>
  );
}
