import type { PipelineStatus } from '../api/types.ts';

/** A status word, coloured by what it means to a user (the class names are in styles.css). */
export function Badge({ value, title }: { value: string | undefined; title?: string }) {
  const tone = toneOf(value ?? '');
  return (
    <span className={`badge ${tone}`} title={title}>
      {value ?? '–'}
    </span>
  );
}

function toneOf(s: string): string {
  if (['Running', 'Success', 'InUse', 'Provisioned'].includes(s)) return 'ok';
  if (['SqlError', 'RustError', 'SystemError', 'Unavailable'].includes(s)) return 'bad';
  if (['Paused', 'Suspended', 'Standby', 'AwaitingApproval'].includes(s)) return 'warn';
  if (['Stopped', 'Cleared'].includes(s)) return 'idle';
  return 'busy';
}

/** The combined deployment status with its desired status, as the seed defines both. */
export function Deployment({ p }: { p: PipelineStatus }) {
  const moving = p.deployment_desired_status !== p.deployment_status;
  return (
    <span className="deployment">
      <Badge value={p.deployment_status} title="deployment_status (current)" />
      {moving && (
        <>
          <span className="arrow" aria-hidden>
            →
          </span>
          <Badge value={p.deployment_desired_status} title="deployment_desired_status" />
        </>
      )}
      {p.deployment_error && (
        <span className="badge bad" title={p.deployment_error.message}>
          {p.deployment_error.error_code}
        </span>
      )}
    </span>
  );
}

/** Every status of the record, desired beside current, for the pipeline page. */
export function StatusTable({ p }: { p: PipelineStatus }) {
  const rows: [string, string | undefined, string | undefined, string | undefined][] = [
    ['deployment', p.deployment_desired_status, p.deployment_status, p.deployment_status_since],
    [
      'resources',
      p.deployment_resources_desired_status,
      p.deployment_resources_status,
      p.deployment_resources_status_since,
    ],
    [
      'runtime',
      p.deployment_runtime_desired_status ?? undefined,
      p.deployment_runtime_status ?? undefined,
      p.deployment_runtime_status_since ?? undefined,
    ],
    ['program', undefined, p.program_status, p.program_status_since],
    ['storage', undefined, p.storage_status, undefined],
  ];
  return (
    <table className="status-table">
      <thead>
        <tr>
          <th />
          <th>desired</th>
          <th>current</th>
          <th>since</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([name, desired, current, since]) => (
          <tr key={name} data-status={name}>
            <th>{name}</th>
            <td>{desired === undefined ? '' : <Badge value={desired} />}</td>
            <td>
              <Badge value={current} />
            </td>
            <td className="since">{since ? new Date(since).toLocaleTimeString() : ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
