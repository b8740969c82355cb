import { tmpdir } from 'node:os';
import { buildApp } from '../src/api/app.js';
import { createRegistry } from '../src/http/metrics.js';
import { createLogger } from '../src/logging/logger.js';
import { pipelineAuth } from '../src/http/pipeline-token.js';
import { readPipelineKey } from '../src/store/platform-secret.js';
import { openDatabase } from '../src/store/open.js';
import { readBuildInfo } from '../src/version.js';
import { isProfileCommand, runProfileCommand } from './profiler.js';

// The real manager API in a process of its own, so that the load generator (in the parent) does not
// share its event loop and `--cpu-prof` profiles the server alone. Wired as src/commands/manager.ts wires it,
// minus the heartbeat timer. The parent talks to it over the IPC channel: `{ port }` when listening,
// `{ profile }` commands answered by `{ profiled }`, `'close'` to shut down; a lost parent
// (disconnect) shuts it down too.

const databaseUrl = process.env['SVC_BENCH_SERVER_DATABASE_URL'];
if (!databaseUrl || !process.send) {
  process.stderr.write('bench/server-main.ts is started by bench/server.ts with an IPC channel\n');
  process.exit(2);
}

const { db } = await openDatabase(databaseUrl, tmpdir());
const log = createLogger({ service: 'manager', json: true, level: 'warn' });
const app = buildApp({
  db,
  log,
  build: readBuildInfo(),
  metrics: createRegistry(),
  pipelineAuth: pipelineAuth(await readPipelineKey(db)),
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.send({ port: typeof address === 'object' && address ? address.port : 0 });

let closing: Promise<void> | undefined;
const close = (): Promise<void> =>
  (closing ??= (async () => {
    await app.close();
    await db.close();
    // Nothing left on the event loop: the process ends by itself.
    if (process.connected) process.disconnect();
  })());

process.on('message', (message: unknown) => {
  if (message === 'close') void close();
  if (isProfileCommand(message)) {
    runProfileCommand(message).then(
      (file) => process.send?.({ profiled: file ?? null }),
      (error: unknown) => process.send?.({ profiled: null, error: String(error) }),
    );
  }
});
process.on('disconnect', () => void close());
