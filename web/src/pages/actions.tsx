import { useEffect, useState } from 'react';
import { ApiError, pipelinePath } from '../api/client.ts';
import type { PipelineStatus } from '../api/types.ts';
import { useApi } from '../lib/api-context.ts';

interface Action {
  label: string;
  path: string;
  query?: Record<string, string>;
  enabled: (p: PipelineStatus) => boolean;
  danger?: boolean;
}

const stopped = (p: PipelineStatus) =>
  p.deployment_resources_status === 'Stopped' && p.deployment_desired_status === 'Stopped';
const failed = (p: PipelineStatus) => ['SqlError', 'RustError', 'SystemError'].includes(p.program_status);
const deployed = (p: PipelineStatus) => p.deployment_resources_status === 'Provisioned';

// Each button is one POST of docs/api.md; enabled when the API would take it, so a click that would
// only earn a 400 is not offered (the API still decides: its error is shown as it comes).
const ACTIONS: readonly Action[] = [
  {
    label: 'Start',
    path: '/start',
    enabled: (p) =>
      p.deployment_desired_status === 'Stopped' && p.deployment_resources_status !== 'Stopping' && !failed(p),
  },
  { label: 'Pause', path: '/pause', enabled: (p) => deployed(p) && p.deployment_runtime_status === 'Running' },
  { label: 'Resume', path: '/resume', enabled: (p) => deployed(p) && p.deployment_runtime_status === 'Paused' },
  { label: 'Stop', path: '/stop', enabled: (p) => !stopped(p) },
  {
    label: 'Force stop',
    path: '/stop',
    query: { force: 'true' },
    enabled: (p) => !stopped(p) || p.deployment_resources_status !== 'Stopped',
    danger: true,
  },
  { label: 'Clear storage', path: '/clear', enabled: (p) => stopped(p) && p.storage_status === 'InUse', danger: true },
  { label: 'Dismiss error', path: '/dismiss_error', enabled: (p) => p.deployment_error != null },
];

/** Start, pause, resume, stop (graceful and forced), clear and dismiss error, with the API's answer. */
export function Actions({ p, onDone }: { p: PipelineStatus; onDone: () => void }) {
  const api = useApi();
  const [answer, setAnswer] = useState<{ text: string; error: boolean }>();
  // An answer is news for a moment; the statuses beside it tell what happened next.
  useEffect(() => {
    if (!answer || answer.error) return;
    const timer = setTimeout(() => setAnswer(undefined), 8000);
    return () => clearTimeout(timer);
  }, [answer]);
  const run = async (a: Action) => {
    try {
      const res = await api.json<unknown>(pipelinePath(p.name, a.path), {
        method: 'POST',
        ...(a.query && { query: a.query }),
      });
      setAnswer({ text: typeof res === 'string' ? res : JSON.stringify(res ?? 'done'), error: false });
    } catch (e) {
      setAnswer({ text: e instanceof ApiError ? `${e.code ?? e.status}: ${e.message}` : String(e), error: true });
    }
    onDone();
  };
  return (
    <div className="actions" role="group" aria-label="Lifecycle actions">
      {ACTIONS.map((a) => (
        <button key={a.label} className={a.danger ? 'danger' : ''} disabled={!a.enabled(p)} onClick={() => void run(a)}>
          {a.label}
        </button>
      ))}
      {answer && (
        <span className={answer.error ? 'error' : 'answer'} role="status">
          {answer.text}
        </span>
      )}
    </div>
  );
}
