import { hostname } from 'node:os';
import type { Logger } from '../logging/logger.js';
import type { Database } from '../store/database.js';
import { beat } from '../store/heartbeat.js';

// What every control-plane command shares: the start-up that undoes itself when a part fails, the
// one shutdown, the URL it logs and the heartbeat it writes.

const HEARTBEAT_INTERVAL_MS = 10_000;

/** A started command: where it answers, and its shutdown. */
export interface RunningComponent {
  url: string;
  close(): Promise<void>;
}

export type Closer = () => Promise<void>;

/**
 * Starts a command's parts in order. `start` registers a closer for each part as it comes up and
 * answers the URL; the parts close in reverse order, at shutdown or as soon as a later part fails.
 */
export async function startComponent(
  name: string,
  log: Logger,
  start: (onClose: (close: Closer) => void) => Promise<string>,
): Promise<RunningComponent> {
  const closers: Closer[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse())
      await close().catch((error: unknown) => log.error({ error }, 'close failed'));
  };
  try {
    const url = await start((close) => closers.push(close));
    return {
      url,
      async close() {
        await closeAll();
        log.info(`svc ${name} stopped`);
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

export function urlOf(
  config: { port: number; bindAddress: string },
  address: ReturnType<import('node:net').Server['address']>,
  scheme: 'http' | 'https' = 'http',
): string {
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.bindAddress.includes(':') ? `[${config.bindAddress}]` : config.bindAddress;
  return `${scheme}://${host}:${port}`;
}

export async function heartbeatLoop(db: Database, component: string, log: Logger): Promise<Closer> {
  const instance = `${hostname()}:${process.pid}`;
  const once = () => beat(db, component, instance).catch((error: unknown) => log.warn({ error }, 'heartbeat failed'));
  await once();
  const timer = setInterval(() => void once(), HEARTBEAT_INTERVAL_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
