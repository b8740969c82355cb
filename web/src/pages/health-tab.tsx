import type { PipelineRecord } from '../api/types.ts';
import { Chart } from '../components/chart.tsx';
import { type Endpoint, type Sample, seriesOf, type Stats } from '../lib/samples.ts';
import { CircuitPanel } from './circuit-panel.tsx';
import { LogPanel } from './log-panel.tsx';

const S = {
  in: [{ label: 'in/s', color: '#2563eb' }],
  out: [{ label: 'out/s', color: '#16a34a' }],
  steps: [{ label: 'steps/s', color: '#9333ea' }],
  stepTime: [{ label: 'ms per step', color: '#7c3aed' }],
  storage: [{ label: 'bytes', color: '#0d9488' }],
  memory: [
    { label: 'RSS MiB', color: '#ea580c' },
    { label: 'V8 heap MiB', color: '#64748b' },
  ],
  rows: [{ label: 'rows in tables', color: '#0891b2' }],
  checkpoints: [{ label: 'checkpoints', color: '#be123c' }],
};

function Connectors({ stats }: { stats: Stats }) {
  const rows = [...stats.inputs.map((e) => ({ dir: 'input', e })), ...stats.outputs.map((e) => ({ dir: 'output', e }))];
  const errorsOf = (e: Endpoint) =>
    Object.entries(e.metrics)
      .filter(([k, v]) => /error|dropped/.test(k) && typeof v === 'number' && v > 0)
      .map(([k, v]) => `${k}: ${String(v)}`);
  return (
    <table className="connectors" aria-label="Connectors">
      <thead>
        <tr>
          <th>connector</th>
          <th>direction</th>
          <th>relation</th>
          <th>records</th>
          <th>errors</th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={5} className="hint">
              No connectors or open streams
            </td>
          </tr>
        )}
        {rows.map(({ dir, e }) => {
          const errors = [...errorsOf(e), ...(e.fatal_error ? [e.fatal_error] : [])];
          return (
            <tr key={`${dir}-${e.endpoint_name}`} className={errors.length ? 'error' : ''}>
              <td>{e.endpoint_name}</td>
              <td>
                {dir}
                {e.paused ? ' (paused)' : ''}
              </td>
              <td>{e.config.stream}</td>
              <td>{String(e.metrics['total_records'] ?? e.metrics['transmitted_records'] ?? '')}</td>
              <td>{errors.join('; ') || '–'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Graphs over time from /stats and /metrics, the connectors with their errors, and the followed log. */
export function HealthTab({ p, samples, stats }: { p: PipelineRecord; samples: readonly Sample[]; stats?: Stats }) {
  const deployed = p.deployment_resources_status === 'Provisioned';
  const s = seriesOf(samples);
  return (
    <div className="health">
      {!deployed && <p className="hint">Not running: the graphs start when the pipeline is deployed.</p>}
      <div className="charts">
        <Chart title="Records in per second" data={[s.t, s.inPerSec]} series={S.in} />
        <Chart title="Records out per second" data={[s.t, s.outPerSec]} series={S.out} />
        <Chart title="Steps per second" data={[s.t, s.stepsPerSec]} series={S.steps} />
        <Chart title="Memory" data={[s.t, s.rssMiB, s.heapMiB]} series={S.memory} unit=" MiB" />
        <Chart title="Step time" data={[s.t, s.stepMs]} series={S.stepTime} unit=" ms" />
        <Chart title="Storage" data={[s.t, s.storageBytes]} series={S.storage} unit="B" />
        <Chart title="Rows in tables" data={[s.t, s.tableRows]} series={S.rows} />
        <Chart title="Checkpoints" data={[s.t, s.checkpoints]} series={S.checkpoints} />
      </div>
      <h2>Connectors</h2>
      {stats ? <Connectors stats={stats} /> : <p className="hint">No statistics yet.</p>}
      <h2>Circuits</h2>
      {deployed ? <CircuitPanel pipeline={p.name} /> : <p className="hint">Not running.</p>}
      <LogPanel pipeline={p.name} deploymentId={p.deployment_id ?? undefined} />
    </div>
  );
}
