import { useEffect, useState } from 'react';
import { pipelinePath } from '../api/client.ts';
import { useApi } from './api-context.ts';
import { type Sample, sampleOf, type Stats } from './samples.ts';

/** Ten minutes of samples at one a second. */
const WINDOW = 600;

/**
 * /stats and /metrics read every second while the pipeline is deployed, whichever tab is shown, so
 * the health graphs already have their history when opened.
 */
export function useSamples(pipeline: string, deployed: boolean) {
  const api = useApi();
  const [samples, setSamples] = useState<Sample[]>([]);
  const [stats, setStats] = useState<Stats>();
  useEffect(() => {
    if (!deployed) return;
    let stopped = false;
    const tick = async () => {
      try {
        const [s, m] = await Promise.all([
          api.json<Stats>(pipelinePath(pipeline, '/stats')),
          api.text(pipelinePath(pipeline, '/metrics')),
        ]);
        if (stopped) return;
        setStats(s);
        setSamples((old) => [...old, sampleOf(Date.now() / 1000, s, m)].slice(-WINDOW));
      } catch {
        // A pipeline going away between two reads: the next tick (or the status above) tells.
      }
    };
    void tick();
    const timer = setInterval(() => void tick(), 1000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [api, pipeline, deployed]);
  return { samples, stats };
}
