import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchFlags, integerFlag, runBench, say, uptime, writeResult } from './common.js';
import { provideDatabase } from './database.js';
import { gatherEvidence } from './evidence.js';
import { machineFacts, renderReport, resultsTable } from './report.js';
import { type Measurement, runScenario, scenarios } from './scenarios.js';
import { startServer } from './server.js';
import { seed } from './seed.js';

// `npm run bench -- [--record] [--duration 10] [--connections 10] [--scenario list-status] [--cpu-prof]`
// The HTTP API of `svc manager` against a real PostgreSQL holding 10,000 pipelines: see bench/README.md.

const USAGE = `usage: npm run bench -- [options]
  --duration S      seconds per scenario (default 10)
  --warmup S        discarded warm-up seconds per scenario (default 3)
  --connections N   concurrent connections (default 10)
  --pipelines N     pipelines seeded (default 10000, at most 99999)
  --scenario ID     only this scenario (list-status, get-all, get-status); repeatable
  --record          also write bench/results/<date>-api.md
  --cpu-prof        CPU-profile the API server during each measured run into bench/profiles/`;

const values = benchFlags(USAGE, {
  duration: { type: 'string', default: '10' },
  warmup: { type: 'string', default: '3' },
  connections: { type: 'string', default: '10' },
  pipelines: { type: 'string', default: '10000' },
  scenario: { type: 'string', multiple: true },
  record: { type: 'boolean', default: false },
  'cpu-prof': { type: 'boolean', default: false },
});

const positive = (name: string, text: string, max = Number.MAX_SAFE_INTEGER): number => integerFlag(name, text, 1, max);
const options = {
  duration: positive('duration', values.duration),
  warmup: positive('warmup', values.warmup),
  connections: positive('connections', values.connections, 1000),
};
const count = positive('pipelines', values.pipelines, 99_999);
const chosen = scenarios(count).filter((s) => !values.scenario || values.scenario.includes(s.id));
if (chosen.length === 0) throw new Error(`no scenario matches ${String(values.scenario)}`);

const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();

// Everything started is stopped, last first, whatever fails in between.
await runBench(async (cleanups) => {
  let failed = false;
  say(`node ${process.version}; ${uptime()}`);
  const database = await provideDatabase();
  cleanups.push(() => database.dispose());
  say(`PostgreSQL ${database.serverVersion}: ${database.where}`);
  const facts = machineFacts(database.serverVersion);

  const profileDir = values['cpu-prof'] ? fileURLToPath(new URL('./profiles/', import.meta.url)) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const server = await startServer(database.url);
  cleanups.push(() => server.close());
  say(`API server pid ${server.pid} at ${server.url}${profileDir ? `, CPU profile into ${profileDir}` : ''}`);

  const seeded = await seed(server.url, database.url, count);
  say(
    `seeded ${seeded.pipelines} pipelines in ${seeded.seconds.toFixed(1)} s ` +
      `(program ${seeded.programChars} chars, ${seeded.programStoredBytes} B stored; TOAST ${(seeded.toastBytes / 2 ** 20).toFixed(0)} MiB)`,
  );

  const evidence = await gatherEvidence(server.url, database.url, count);
  process.stdout.write(
    `\nProof that list?selector=status does not read program texts:\n${evidence.lines.join('\n')}\n\n`,
  );
  failed ||= !evidence.ok;

  const results: Measurement[] = [];
  let counters = evidence.after;
  for (const s of chosen) {
    say(`${s.id}: ${options.warmup} s warm-up + ${options.duration} s, ${options.connections} connections`);
    const file = profileDir && join(profileDir, `${facts.date.replace(/[:.]/g, '-')}-${s.id}.cpuprofile`);
    const hooks = file && {
      beforeRun: () => server.profile({ profile: 'start' }),
      afterRun: async () => {
        await server.profile({ profile: 'stop', file });
        say(`${s.id}: CPU profile ${file} (npx tsx bench/profile-summary.ts ${file})`);
      },
    };
    const m = await runScenario(server.url, database.url, s, options, counters, hooks || {});
    counters = m.after;
    results.push(m);
    say(`${s.id}: ${m.requestsPerSecond.toFixed(1)} req/s, p50 ${m.latency.p50} ms, p99 ${m.latency.p99} ms`);
    failed ||= m.errors > 0 || m.non2xx > 0 || (s.id === 'list-status' && m.counters.toastBlocks > 0);
  }
  process.stdout.write(`${resultsTable(results)}\n`);

  if (values.record) {
    const markdown = renderReport({
      command,
      options,
      facts,
      database: database.where,
      seed: seeded,
      results,
      evidence: evidence.lines,
      uptimeAfter: uptime(),
    });
    say(`recorded ${writeResult('api', facts.date, markdown)}`);
  }
  if (failed) say('FAILED: errors, non-2xx answers or a failed proof (see above)');
  return !failed;
});
