import { useEffect, useRef, useState } from 'react';
import { pipelinePath } from '../api/client.ts';
import { readLines } from '../api/lines.ts';
import { useApi } from '../lib/api-context.ts';

/** Lines kept on the page: the follow stream can run for days. */
const KEEP = 5000;

/** The pipeline's log (GET logs), followed: the backlog, then each line as the process writes it. */
export function LogPanel({ pipeline, deploymentId }: { pipeline: string; deploymentId: string | undefined }) {
  const api = useApi();
  const [lines, setLines] = useState<string[]>([]);
  const [state, setState] = useState('connecting');
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const abort = new AbortController();
    setLines([]);
    api
      .fetch(pipelinePath(pipeline, '/logs'), { signal: abort.signal })
      .then(async (res) => {
        setState('following');
        let batch: string[] = [];
        // Lines come in bursts: one state update per animation frame, not one per line.
        let scheduled = false;
        await readLines(res, (line) => {
          batch.push(line);
          if (scheduled) return;
          scheduled = true;
          requestAnimationFrame(() => {
            const add = batch;
            batch = [];
            scheduled = false;
            setLines((old) => [...old, ...add].slice(-KEEP));
          });
        });
        setState('ended (the deployment stopped)');
      })
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setState(e instanceof Error ? e.message : String(e));
      });
    return () => abort.abort();
  }, [api, pipeline, deploymentId]);
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);
  return (
    <section className="panel" aria-label="Log">
      <h2>
        Log <small className="hint">{state}</small>
      </h2>
      <pre className="log" ref={box} data-testid="log">
        {lines.join('\n')}
      </pre>
    </section>
  );
}
