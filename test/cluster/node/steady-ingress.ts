// Steady ingress into a fault-tolerant pipeline while its pod goes away (pod-loss.test.ts,
// disruption.test.ts): one row every 50 ms into table `t (id INT)`, a row counting as acknowledged
// when its POST answered 200. After the loss the table must hold exactly the acknowledged rows.

export interface SteadyIngress {
  /** Ids whose POST answered 200, in the order they were sent. */
  acknowledged: number[];
  /** Stops sending and waits for the request in flight. */
  stop(): Promise<void>;
}

/**
 * Starts sending to `pipelineUrl` (`…/v0/pipelines/<name>`); `headers` for an API that needs a key.
 * A function for the URL is asked again after each request that was not acknowledged (an api-server
 * that `helm upgrade` replaced); `firstId` for a second run into the same table.
 */
export function steadyIngress(
  pipelineUrl: string | (() => Promise<string | undefined>),
  headers: Record<string, string> = {},
  firstId = 1,
): SteadyIngress {
  const acknowledged: number[] = [];
  const where = typeof pipelineUrl === 'string' ? () => Promise.resolve(pipelineUrl) : pipelineUrl;
  let url: string | undefined;
  let pushing = true;
  let next = firstId;
  const loop = (async () => {
    while (pushing) {
      url ??= await where().catch(() => undefined);
      const n = next++;
      const r = url
        ? await fetch(`${url}/ingress/t?format=json&update_format=raw`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ id: n }),
          }).catch(() => undefined)
        : undefined;
      if (r?.status === 200) acknowledged.push(n);
      else url = undefined;
      await r?.text().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    acknowledged,
    stop: async () => {
      pushing = false;
      await loop;
    },
  };
}

/** The ids in table `t`, ascending (an ad-hoc query through the API). */
export async function tableIds(pipelineUrl: string, headers: Record<string, string> = {}): Promise<number[]> {
  const sql = encodeURIComponent('SELECT id FROM t ORDER BY id');
  const r = await fetch(`${pipelineUrl}/query?format=json&sql=${sql}`, { headers });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`query: ${r.status} ${text}`);
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { id: number }).id);
}

/** `acknowledged` sorted, as tableIds returns the table when nothing acknowledged was lost. */
export const sortedIds = (acknowledged: readonly number[]): number[] => [...acknowledged].sort((a, b) => a - b);
