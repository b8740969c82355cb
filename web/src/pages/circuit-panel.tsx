import { pipelinePath } from '../api/client.ts';
import { useApi } from '../lib/api-context.ts';
import { usePoll } from '../lib/use-poll.ts';
import type { CircuitProfileBody as Profile, ViewProfile } from '../../../src/model/circuit-profile.ts';

// The pipeline's GET /circuit_profile (docs/data-path.md, "Circuit profile"): each view and how it is
// kept; a native view's operators, indented by depth, with what they hold and, when the circuits are
// timed (runtime_config.cpu_profiler), their steps, own time and rows out. Read every 5 s.

const num = (n: number | null) => (n === null ? '–' : n.toLocaleString('en-US'));

function ViewRows({ v }: { v: ViewProfile }) {
  const kept =
    v.maintenance === 'native' ? `native on ${v.shards ?? 1} shard(s)` : `${v.maintenance ?? '?'}: ${v.reason ?? ''}`;
  return (
    <>
      <tr className="circuit-view">
        <td>
          <strong>{v.view}</strong> <span className="hint">{kept}</span>
        </td>
        <td>{v.held_rows === null ? '' : `${num(v.held_rows)} rows`}</td>
        <td colSpan={3} />
      </tr>
      {(v.operators ?? []).map((o, i) => (
        <tr key={i}>
          <td style={{ paddingLeft: `${1 + o.depth}rem` }}>{o.operator}</td>
          <td>{num(o.held)}</td>
          <td>{num(o.steps)}</td>
          <td>{o.self_ms === null ? '–' : o.self_ms.toFixed(1)}</td>
          <td>{num(o.rows_out)}</td>
        </tr>
      ))}
    </>
  );
}

export function CircuitPanel({ pipeline }: { pipeline: string }) {
  const api = useApi();
  const { data, error } = usePoll(
    () => api.json<Profile>(pipelinePath(pipeline, '/circuit_profile')),
    5000,
    `circuit-${pipeline}`,
  );
  if (!data) return <p className="hint">{error ? `No circuit profile: ${error.message}` : 'Reading the circuits…'}</p>;
  return (
    <table className="connectors" aria-label="Circuit profile">
      <thead>
        <tr>
          <th>view / operator</th>
          <th>holds</th>
          <th>steps</th>
          <th>own ms{data.timed ? '' : ' (cpu_profiler off)'}</th>
          <th>rows out</th>
        </tr>
      </thead>
      <tbody>
        {data.views.map((v) => (
          <ViewRows key={v.view} v={v} />
        ))}
      </tbody>
    </table>
  );
}
