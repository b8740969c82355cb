import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { ProfileCommand } from './profiler.js';

// Parent side of bench/server-main.ts: start the API in a child process on the same Node as this
// script (the project's Node 22, not the machine's), wait for its port, and stop it.

export interface BenchServer {
  url: string;
  pid: number;
  /** Starts or stops a CPU profile in the server (bench/profiler.ts); 'stop' writes `file`. */
  profile(command: ProfileCommand): Promise<void>;
  close(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('./server-main.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const isPortMessage = (m: unknown): m is { port: number } =>
  typeof m === 'object' && m !== null && 'port' in m && typeof m.port === 'number';

const isProfiledMessage = (m: unknown): m is { profiled: string | null; error?: string } =>
  typeof m === 'object' && m !== null && 'profiled' in m;

export async function startServer(databaseUrl: string): Promise<BenchServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SVC_BENCH_SERVER_DATABASE_URL: databaseUrl },
  });
  // A spawn failure ('error') ends the wait as an exit would.
  const exited: Promise<unknown[]> = once(child, 'exit').catch((error: unknown) => [error]);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('API server did not start within 60 s')), START_TIMEOUT_MS);
      child.on('message', (m) => {
        if (isPortMessage(m)) {
          clearTimeout(timer);
          resolve(m.port);
        }
      });
      void exited.then(([code]) => {
        clearTimeout(timer);
        reject(new Error(`API server exited before listening (code ${String(code)})`));
      });
    });
    return {
      url: `http://127.0.0.1:${port}`,
      pid: child.pid ?? 0,
      profile: (command) => profile(child, command),
      close: () => stop(child, exited),
    };
  } catch (error) {
    await stop(child, exited);
    throw error;
  }
}

function profile(child: ChildProcess, command: ProfileCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: unknown): void => {
      if (!isProfiledMessage(m)) return;
      child.off('message', onMessage);
      if (m.error) reject(new Error(`CPU profile: ${m.error}`));
      else resolve();
    };
    child.on('message', onMessage);
    child.send(command);
  });
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.send('close');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
