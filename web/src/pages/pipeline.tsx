import { pipelinePath } from '../api/client.ts';
import type { PipelineRecord } from '../api/types.ts';
import { StatusTable } from '../components/status.tsx';
import { useApi } from '../lib/api-context.ts';
import { hrefOf, type Tab, TABS } from '../lib/route.ts';
import { usePoll } from '../lib/use-poll.ts';
import { useSamples } from '../lib/use-samples.ts';
import { Actions } from './actions.tsx';
import { ConfigTab } from './config-tab.tsx';
import { DataTab } from './data-tab.tsx';
import { HealthTab } from './health-tab.tsx';
import { ProgramTab } from './program-tab.tsx';

/** One pipeline: its statuses and actions above, then the tab asked for. The record is read every second. */
export function PipelinePage({ name, tab }: { name: string; tab: Tab }) {
  const api = useApi();
  const record = usePoll(() => api.json<PipelineRecord>(pipelinePath(name)), 1000, name);
  const p = record.data;
  const health = useSamples(name, p?.deployment_resources_status === 'Provisioned');
  if (!p) {
    return (
      <main className="page">
        <h1>{name}</h1>
        <p className={record.error ? 'error' : ''}>{record.error?.message ?? 'Loading…'}</p>
      </main>
    );
  }
  return (
    <main className="page">
      <div className="pipeline-head">
        <div>
          <h1>{p.name}</h1>
          {p.description && <p className="description">{p.description}</p>}
          <Actions p={p} onDone={record.refresh} />
        </div>
        <StatusTable p={p} />
      </div>
      {p.deployment_error && (
        <details className="deployment-error" open>
          <summary>
            Deployment error: <code>{p.deployment_error.error_code}</code>
          </summary>
          <pre>{p.deployment_error.message}</pre>
          {p.deployment_error.details !== null && <pre>{JSON.stringify(p.deployment_error.details, null, 2)}</pre>}
        </details>
      )}
      {record.error && (
        <p className="error" role="alert">
          {record.error.message}
        </p>
      )}
      <nav className="tabs" aria-label="Pipeline pages">
        {TABS.map((t) => (
          <a
            key={t}
            href={hrefOf({ page: 'pipeline', name, tab: t })}
            className={t === tab ? 'active' : ''}
            aria-current={t === tab ? 'page' : undefined}
          >
            {t === 'config' ? 'configuration' : t}
          </a>
        ))}
      </nav>
      {tab === 'program' && <ProgramTab p={p} onSaved={record.refresh} />}
      {tab === 'config' && <ConfigTab p={p} onSaved={record.refresh} />}
      {tab === 'data' && <DataTab p={p} />}
      {tab === 'health' && <HealthTab p={p} samples={health.samples} stats={health.stats} />}
    </main>
  );
}
