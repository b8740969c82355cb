// The kubelet's CPU weights, as process priorities. A real kubelet puts each container in a cgroup
// whose CPU weight follows its CPU request (cpu.shares = milliCPU × 1024 / 1000, at least 2; a
// container without a request, e.g. in a BestEffort pod, gets the minimum, 2). This agent runs
// containers as plain processes, so it maps the same shares to a nice value instead: the weight of
// nice n is 1024 / 1.25^n, so n = log(1024 / shares) / log(1.25), kept within 0..19 (nothing is
// raised above the control plane, which runs at nice 0). Without it, 200 request-less pipeline pods
// on a 2-core node competed with the control plane and the runner as equals, which no kubelet allows.
import type { V1Container } from '@kubernetes/client-node';

const MIN_SHARES = 2;
const SHARES_PER_CPU = 1024;
const NICE_STEP = 1.25;
export const LOWEST_PRIORITY = 19;

/** A CPU quantity ("250m", "1", "0.5") in milliCPU; undefined when it is not one of those forms. */
export function milliCpu(quantity: string | number | undefined): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) && quantity >= 0 ? quantity * 1000 : undefined;
  const m = /^(\d+(?:\.\d+)?)(m?)$/.exec(quantity?.trim() ?? '');
  if (!m) return undefined;
  const value = Number(m[1]);
  return m[2] === 'm' ? value : value * 1000;
}

/** The kubelet's cpu.shares for a container (its CPU request; the API server defaults it to the limit). */
export function cpuShares(container: Pick<V1Container, 'resources'>): number {
  const requested = milliCpu(container.resources?.requests?.['cpu'] as string | number | undefined);
  if (requested === undefined) return MIN_SHARES;
  return Math.max(MIN_SHARES, Math.floor((requested * SHARES_PER_CPU) / 1000));
}

/** The nice value whose scheduler weight matches `shares` relative to an unweighted process (1024). */
export function niceForShares(shares: number): number {
  if (shares >= SHARES_PER_CPU) return 0;
  const nice = Math.round(Math.log(SHARES_PER_CPU / shares) / Math.log(NICE_STEP));
  return Math.min(LOWEST_PRIORITY, Math.max(0, nice));
}
