import { useEffect, useState } from 'react';
import { pipelinePath } from '../api/client.ts';
import { readLines } from '../api/lines.ts';
import type { Relation } from '../api/types.ts';
import { type Column, cellText, Grid } from '../components/grid.tsx';
import { useApi } from '../lib/api-context.ts';

interface Change {
  n: number;
  kind: 'insert' | 'delete';
  step: number;
  snapshot: boolean;
  row: Record<string, unknown>;
}

interface Chunk {
  processed_steps?: number;
  snapshot?: boolean;
  json_data?: ({ insert: Record<string, unknown> } | { delete: Record<string, unknown> })[];
}

/** The most recent changes kept on the page; older ones scroll away. */
const KEEP = 10_000;

function changesOf(chunk: Chunk, first: number): Change[] {
  return (chunk.json_data ?? []).map((c, i) => ({
    n: first + i,
    kind: 'insert' in c ? 'insert' : 'delete',
    step: chunk.processed_steps ?? 0,
    snapshot: chunk.snapshot === true,
    row: 'insert' in c ? c.insert : c.delete,
  }));
}

/** A view's change stream (POST egress, JSON), newest first: inserts and deletes as they arrive. */
export function ChangesPanel({ pipeline, view }: { pipeline: string; view: Relation }) {
  const api = useApi();
  const [changes, setChanges] = useState<Change[]>([]);
  const [state, setState] = useState('connecting');
  useEffect(() => {
    const abort = new AbortController();
    let count = 0;
    setChanges([]);
    const follow = async () => {
      const res = await api.fetch(pipelinePath(pipeline, `/egress/${encodeURIComponent(view.name)}`), {
        method: 'POST',
        query: { format: 'json', send_snapshot: view.materialized },
        signal: abort.signal,
      });
      setState('following');
      await readLines(res, (line) => {
        if (!line.trim()) return;
        const fresh = changesOf(JSON.parse(line) as Chunk, count);
        if (fresh.length === 0) return;
        count += fresh.length;
        setChanges((old) => [...fresh.reverse(), ...old].slice(0, KEEP));
      });
      setState('ended');
    };
    follow().catch((e: unknown) => {
      if (!abort.signal.aborted) setState(`stopped: ${e instanceof Error ? e.message : String(e)}`);
    });
    return () => abort.abort();
  }, [api, pipeline, view.name, view.materialized]);
  const columns: Column<Change>[] = [
    { key: '±', title: '±', width: '3rem', render: (c) => (c.kind === 'insert' ? '+' : '−') },
    { key: 'step', title: 'step', width: '6rem', render: (c) => (c.snapshot ? 'snapshot' : c.step) },
    ...view.fields.map((f) => ({
      key: f.name,
      title: f.name,
      render: (c: Change) => cellText(c.row[f.name] ?? c.row[f.name.toLowerCase()]),
    })),
  ];
  return (
    <section className="panel" aria-label={`Changes of ${view.name}`}>
      <h2>
        Changes of <code>{view.name}</code> <small className="hint">{state}</small>
      </h2>
      <Grid
        label={`Changes of ${view.name}`}
        columns={columns}
        rows={changes}
        rowKey={(c) => String(c.n)}
        rowClass={(c) => c.kind}
        height="18rem"
        empty="No changes yet"
      />
    </section>
  );
}
