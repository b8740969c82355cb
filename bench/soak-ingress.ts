import { sleep } from './common.js';

// bench:soak --ingress N: steady input while the soak runs. Each pipeline gets upserts of a fixed key
// space through the manager's ingress route, so its data stays the same size while every step
// changes it (dead rows, WAL, temporary tables): what must not make a pipeline grow.

const KEYS = 1000;

export interface Feeder {
  stop(): Promise<void>;
  readonly sent: number;
  readonly failed: number;
}

/** `perSecond` records a second to each pipeline's table `t` (x INT PRIMARY KEY, s TEXT), one POST each. */
export function feedPipelines(url: string, names: readonly string[], perSecond: number): Feeder {
  let running = true;
  let sent = 0;
  let failed = 0;
  let next = 0;
  const post = async (name: string) => {
    const body = JSON.stringify(
      Array.from({ length: perSecond }, () => {
        const x = next++ % KEYS;
        return { insert: { x, s: `s${next % 10}` } };
      }),
    );
    try {
      const r = await fetch(`${url}/v0/pipelines/${name}/ingress/t?format=json&array=true`, { method: 'POST', body });
      await r.arrayBuffer();
      if (r.ok) sent += perSecond;
      else failed += perSecond;
    } catch {
      failed += perSecond;
    }
  };
  const loop = (async () => {
    while (running) {
      const at = performance.now();
      await Promise.all(names.map(post));
      await sleep(Math.max(0, 1000 - (performance.now() - at)));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
    get sent() {
      return sent;
    },
    get failed() {
      return failed;
    },
  };
}
