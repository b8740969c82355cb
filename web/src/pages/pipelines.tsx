import { type FormEvent, useMemo, useState } from 'react';
import { ApiError, pipelinePath } from '../api/client.ts';
import type { PipelineRecord, PipelineStatus } from '../api/types.ts';
import { type Column, Grid } from '../components/grid.tsx';
import { Badge, Deployment } from '../components/status.tsx';
import { useApi } from '../lib/api-context.ts';
import { hrefOf } from '../lib/route.ts';
import { usePoll } from '../lib/use-poll.ts';

/** The filters of the list, by what a user looks for. */
const FILTERS: Record<string, (p: PipelineStatus) => boolean> = {
  all: () => true,
  running: (p) => p.deployment_status === 'Running',
  paused: (p) => p.deployment_status === 'Paused',
  stopped: (p) => p.deployment_status === 'Stopped',
  transitioning: (p) => p.deployment_status !== p.deployment_desired_status,
  error: (p) => p.deployment_error != null || ['SqlError', 'RustError', 'SystemError'].includes(p.program_status),
  compiling: (p) => ['Pending', 'CompilingSql', 'SqlCompiled', 'CompilingRust'].includes(p.program_status),
};

const EXAMPLE = `CREATE TABLE t (id INT NOT NULL, name TEXT) WITH ('materialized' = 'true');
CREATE MATERIALIZED VIEW v AS SELECT id, name FROM t;
`;

function CreateForm({ onCreated }: { onCreated: (name: string) => void }) {
  const api = useApi();
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await api.json<PipelineRecord>('/v0/pipelines', { method: 'POST', json: { name, program_code: EXAMPLE } });
      onCreated(name);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <form className="inline" onSubmit={(e) => void submit(e)} aria-label="Create a pipeline">
      <input
        aria-label="New pipeline name"
        placeholder="new pipeline name"
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" disabled={!name}>
        Create
      </button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}

function RowActions({ p, onDone }: { p: PipelineStatus; onDone: (error?: string) => void }) {
  const api = useApi();
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      onDone();
    } catch (err) {
      onDone(err instanceof ApiError ? `${p.name}: ${err.message}` : String(err));
    }
  };
  const rename = () => {
    const to = window.prompt(`Rename ${p.name} to`, p.name);
    if (to && to !== p.name) void act(() => api.json(pipelinePath(p.name), { method: 'PATCH', json: { name: to } }));
  };
  const remove = () => {
    if (window.confirm(`Delete pipeline ${p.name}?`))
      void act(() => api.fetch(pipelinePath(p.name), { method: 'DELETE' }));
  };
  return (
    <span className="row-actions">
      <button className="link" onClick={rename} aria-label={`Rename ${p.name}`}>
        rename
      </button>
      <button className="link danger" onClick={remove} aria-label={`Delete ${p.name}`}>
        delete
      </button>
    </span>
  );
}

/** Every pipeline, read again every 2 s (selector=status: no program text, so 1,000 stay small). */
export function PipelinesPage() {
  const api = useApi();
  const list = usePoll(
    () => api.json<PipelineStatus[]>('/v0/pipelines', { query: { selector: 'status' } }),
    2000,
    'list',
  );
  const [filter, setFilter] = useState('all');
  const [search, setSearch] = useState('');
  const [message, setMessage] = useState('');
  const rows = useMemo(() => {
    const keep = FILTERS[filter] ?? FILTERS['all'];
    const needle = search.toLowerCase();
    return (list.data ?? []).filter((p) => keep?.(p) && p.name.toLowerCase().includes(needle));
  }, [list.data, filter, search]);
  const done = (error?: string) => {
    setMessage(error ?? '');
    list.refresh();
  };
  const columns: Column<PipelineStatus>[] = [
    {
      key: 'name',
      title: 'Name',
      width: 'minmax(10rem, 2fr)',
      render: (p) => <a href={hrefOf({ page: 'pipeline', name: p.name, tab: 'program' })}>{p.name}</a>,
    },
    { key: 'deployment', title: 'Deployment', width: 'minmax(12rem, 2fr)', render: (p) => <Deployment p={p} /> },
    { key: 'program', title: 'Program', render: (p) => <Badge value={p.program_status} /> },
    { key: 'storage', title: 'Storage', render: (p) => <Badge value={p.storage_status} /> },
    { key: 'description', title: 'Description', width: 'minmax(8rem, 2fr)', render: (p) => p.description },
    { key: 'actions', title: '', width: '10rem', render: (p) => <RowActions p={p} onDone={done} /> },
  ];
  return (
    <main className="page">
      <div className="toolbar">
        <h1>Pipelines</h1>
        <CreateForm onCreated={(name) => (window.location.hash = hrefOf({ page: 'pipeline', name, tab: 'program' }))} />
      </div>
      <div className="toolbar filters" role="group" aria-label="Filter by status">
        {Object.keys(FILTERS).map((f) => (
          <button
            key={f}
            className={f === filter ? 'chip active' : 'chip'}
            aria-pressed={f === filter}
            onClick={() => setFilter(f)}
          >
            {f}
          </button>
        ))}
        <input
          type="search"
          aria-label="Search by name"
          placeholder="search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <span className="count" data-testid="pipeline-count">
          {rows.length} of {list.data?.length ?? 0}
        </span>
      </div>
      {(message || list.error) && (
        <p className="error" role="alert">
          {message || list.error?.message}
        </p>
      )}
      <Grid
        label="Pipelines"
        columns={columns}
        rows={rows}
        rowKey={(p) => p.id}
        height="calc(100vh - 12rem)"
        empty={list.data ? 'No pipelines' : 'Loading…'}
      />
    </main>
  );
}
