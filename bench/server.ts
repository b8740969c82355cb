import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

// Parent side of bench/server-main.ts: start the API in a child process on the same Node as this
// script (the project's Node 22, not the machine's), wait for its port, and stop it.

export interface BenchServer {
  url: string;
  pid: number;
  close(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('./server-main.ts', import.meta.url));
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

const isPortMessage = (m: unknown): m is { port: number } =>
  typeof m === 'object' && m !== null && 'port' in m && typeof m.port === 'number';

export async function startServer(databaseUrl: string, cpuProfileDir?: string): Promise<BenchServer> {
  const profile = cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', MAIN], {
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
    return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, close: () => stop(child, exited) };
  } catch (error) {
    await stop(child, exited);
    throw error;
  }
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.send('close');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
