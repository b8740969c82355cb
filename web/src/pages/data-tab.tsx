import { useState } from 'react';
import type { PipelineRecord, Relation } from '../api/types.ts';
import { ChangesPanel } from './changes-panel.tsx';
import { PushPanel } from './push-panel.tsx';
import { QueryPanel } from './query-panel.tsx';

const typeOf = (f: Relation['fields'][number]): string =>
  `${f.columntype.type}${f.columntype.nullable ? '' : ' NOT NULL'}`;

function RelationList({
  title,
  relations,
  selected,
  onSelect,
}: {
  title: string;
  relations: readonly Relation[];
  selected?: string;
  onSelect?: (r: Relation) => void;
}) {
  return (
    <div className="relations">
      <h3>{title}</h3>
      {relations.length === 0 && <p className="hint">none</p>}
      {relations.map((r) => (
        <details key={r.name} open={r.name === selected}>
          <summary>
            <code>{r.name}</code> {r.materialized && <span className="badge idle">materialized</span>}
            {onSelect && (
              <button className="link" onClick={() => onSelect(r)}>
                follow changes
              </button>
            )}
          </summary>
          <ul>
            {r.fields.map((f) => (
              <li key={f.name}>
                {f.name} <span className="hint">{typeOf(f)}</span>
              </li>
            ))}
          </ul>
        </details>
      ))}
    </div>
  );
}

/** Tables and views (program_info), a view's changes, ad-hoc queries and pushing rows. */
export function DataTab({ p }: { p: PipelineRecord }) {
  const schema = p.program_info?.schema;
  const [view, setView] = useState<Relation | undefined>();
  if (!schema) return <p className="hint">No program information yet: the program has not compiled.</p>;
  const deployed = p.deployment_resources_status === 'Provisioned';
  const first = schema.outputs[0] ?? schema.inputs[0];
  return (
    <div className="data">
      <aside>
        <RelationList title="Tables" relations={schema.inputs} />
        <RelationList
          title="Views"
          relations={schema.outputs}
          selected={view?.name}
          onSelect={deployed ? setView : undefined}
        />
      </aside>
      <div className="data-main">
        {!deployed && <p className="hint">Start the pipeline to push rows, follow changes and query.</p>}
        {deployed && view && <ChangesPanel key={view.name} pipeline={p.name} view={view} />}
        {deployed && <PushPanel pipeline={p.name} tables={schema.inputs} />}
        {deployed && <QueryPanel pipeline={p.name} initial={first ? `SELECT * FROM ${first.name}` : ''} />}
      </div>
    </div>
  );
}
