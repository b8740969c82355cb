import * as k8s from '@kubernetes/client-node';
import type { Logger } from '../../../logging/logger.js';
import { type Kube, statusOf } from './kube.js';

// Leader election through a coordination.k8s.io Lease (KUBERNETES.md "Several runner replicas"),
// the algorithm of client-go's leaderelection: a candidate takes the Lease when it is free or when
// its holder has not renewed it for a lease duration *as observed on the candidate's own clock* (so
// clock skew between replicas does not matter); the leader renews it and gives up when renewing
// fails for longer than the renew deadline. Timings: a dead leader is replaced within
// leaseDuration + retryPeriod (10 + 2 s), inside the 15 s the issue asks.

export interface LeaderOptions {
  kube: Kube;
  log: Logger;
  /** Lease name (--leader-election-id). */
  name: string;
  namespace: string;
  identity: string;
  leaseDurationSecs?: number;
  renewDeadlineSecs?: number;
  retryPeriodSecs?: number;
  now?: () => number;
}

export interface Leadership {
  /** Resolves when leadership is lost (renewal failed past the deadline). */
  lost: Promise<void>;
  /** Stops renewing and frees the Lease so a standby takes over at once. */
  release(): Promise<void>;
}

interface Observed {
  key: string;
  at: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LeaderElector {
  private observed: Observed | undefined;
  private stopped = false;
  private readonly leaseSecs: number;
  private readonly deadlineMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(private readonly opts: LeaderOptions) {
    this.leaseSecs = opts.leaseDurationSecs ?? 10;
    this.deadlineMs = (opts.renewDeadlineSecs ?? 7) * 1000;
    this.retryMs = (opts.retryPeriodSecs ?? 2) * 1000;
    this.now = opts.now ?? Date.now;
  }

  /** Waits until this candidate holds the Lease (or `stop()` is called: then rejects). */
  async acquire(): Promise<Leadership> {
    let waitingLogged = false;
    while (!this.stopped) {
      const holder = await this.tryAcquireOrRenew().catch((error: unknown) => {
        this.opts.log.warn({ err: error }, 'leader election: %s', (error as Error).message);
        return undefined;
      });
      if (holder === this.opts.identity) {
        this.opts.log.info(
          { lease: this.opts.name, identity: this.opts.identity },
          'leader election: acquired the Lease',
        );
        return this.lead();
      }
      if (!waitingLogged && holder) {
        this.opts.log.info({ lease: this.opts.name, holder }, 'leader election: %s leads; waiting', holder);
        waitingLogged = true;
      }
      await sleep(this.retryMs);
    }
    throw new Error('leader election stopped');
  }

  stop(): void {
    this.stopped = true;
  }

  private lead(): Leadership {
    let renewing = true;
    const lost = (async () => {
      let lastRenew = this.now();
      while (renewing) {
        await sleep(this.retryMs);
        if (!renewing) return;
        const holder = await this.tryAcquireOrRenew().catch(() => undefined);
        if (holder === this.opts.identity) lastRenew = this.now();
        else if (holder !== undefined || this.now() - lastRenew > this.deadlineMs) {
          this.opts.log.error({ lease: this.opts.name, holder }, 'leader election: lost the Lease');
          return;
        }
      }
    })();
    return {
      lost,
      release: async () => {
        renewing = false;
        this.stopped = true;
        await this.releaseLease().catch((error: unknown) =>
          this.opts.log.warn({ err: error }, 'leader election: could not release the Lease'),
        );
      },
    };
  }

  /** One attempt; returns who holds the Lease afterwards (undefined: unknown, the request failed). */
  private async tryAcquireOrRenew(): Promise<string | undefined> {
    const { kube, name, namespace, identity } = this.opts;
    let lease: k8s.V1Lease;
    try {
      lease = await kube.call('get', 'leases', () => kube.coordination.readNamespacedLease({ name, namespace }));
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
      const now = new k8s.V1MicroTime(this.now());
      await kube.call('create', 'leases', () =>
        kube.coordination.createNamespacedLease({
          namespace,
          body: {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: this.leaseSecs,
              acquireTime: now,
              renewTime: now,
              leaseTransitions: 0,
            },
          },
        }),
      );
      return identity;
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const key = `${holder}|${spec.renewTime ? new Date(spec.renewTime).toISOString() : ''}`;
    if (!this.observed || this.observed.key !== key) this.observed = { key, at: this.now() };
    const duration = (spec.leaseDurationSeconds ?? this.leaseSecs) * 1000;
    if (holder && holder !== identity && this.now() < this.observed.at + duration) return holder;
    const now = new k8s.V1MicroTime(this.now());
    const taking = holder !== identity;
    // The resourceVersion makes the update conditional: of two candidates, one wins (409 for the other).
    await kube.call('update', 'leases', () =>
      kube.coordination.replaceNamespacedLease({
        name,
        namespace,
        body: {
          metadata: { ...lease.metadata, name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: this.leaseSecs,
            acquireTime: taking ? now : (spec.acquireTime ?? now),
            renewTime: now,
            leaseTransitions: (spec.leaseTransitions ?? 0) + (taking && holder ? 1 : 0),
          },
        },
      }),
    );
    return identity;
  }

  private async releaseLease(): Promise<void> {
    const { kube, name, namespace, identity } = this.opts;
    const lease = await kube.call('get', 'leases', () => kube.coordination.readNamespacedLease({ name, namespace }));
    if (lease.spec?.holderIdentity !== identity) return;
    await kube.call('update', 'leases', () =>
      kube.coordination.replaceNamespacedLease({
        name,
        namespace,
        body: { ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 } },
      }),
    );
  }
}
