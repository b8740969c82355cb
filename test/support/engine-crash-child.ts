import { readFile } from 'node:fs/promises';
import { DeploymentConfig } from '../../src/model/deployment.js';
import { PipelineController } from '../../src/pipeline/controller.js';
import { processSettings } from '../../src/pipeline/settings.js';
import { silentLogger } from './silent-logger.js';

// A pipeline controller in a process of its own, for the crash test (test/api/engine-checkpoint):
// `write` ingests, steps, checkpoints, ingests more after the checkpoint, then waits to be killed;
// `read` starts from the same storage and reports what the engine holds. Progress goes to stdout as
// one JSON line per event. Runs with `node --import tsx`.

const [mode, configFile] = process.argv.slice(2);
const config = DeploymentConfig.parse(JSON.parse(await readFile(configFile!, 'utf8')));
const log = silentLogger('pipeline', 'warn');
const ctl = new PipelineController(config, processSettings(config.runtime_config), 'Running', log);
await ctl.load();
const engine = ctl.dataEngine!;
const say = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
const rows = (ids: number[]) => ids.map((id) => ({ weight: 1, row: { id, v: id * 7 } }));
const views = async () => ({
  s: await engine.snapshot('s'),
  big: await engine.snapshot('big'),
  top2: await engine.snapshot('top2'),
});
const maintenance = () =>
  Object.fromEntries(engine.relations().flatMap((r) => (r.kind === 'view' ? [[r.name, r.maintenance]] : [])));

if (mode === 'write') {
  await engine.ingest('t', rows([1, 2, 3]));
  await engine.step();
  await engine.ingest('t', rows([4, 5])); // buffered, not yet applied: the checkpoint keeps it
  const written = await ctl.checkpoint();
  say({ checkpointed: written.id });
  await engine.ingest('t', rows([6, 7, 8])); // after the checkpoint: lost in the crash
  await engine.step();
  say({ ready: true, views: await views() });
  setInterval(() => undefined, 1000); // until SIGKILL
} else {
  say({ resumed: true, buffered: engine.bufferedRecords, views: await views(), maintenance: maintenance() });
  await engine.step();
  say({ stepped: true, views: await views() });
  await ctl.close();
}
