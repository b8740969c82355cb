import type { FastifyInstance } from 'fastify';
import type { JsonValue } from '../../model/json.js';
import { unknownPipeline } from '../../model/errors.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { redactConfig, redactText, secretsOf } from '../../model/redact.js';
import { selectPipeline } from '../../store/pipelines/select.js';
import { zip, type ZipEntry } from '../../http/zip.js';
import type { ApiDeps } from '../deps.js';
import { toRecord } from '../record.js';
import type { NameParams } from './params.js';

// GET /v0/pipelines/{name}/support_bundle: what a support request needs, as one ZIP file (the
// ecosystem's SDK saves it as is): the pipeline's record, the platform's configuration, and while it
// is deployed its /stats, /metrics and checkpoints, and its recent log lines. Secrets never leave:
// runtime_config and the connectors' configs are masked by member name, and every secret found in
// them (and URI passwords) is masked wherever else it appears, in the program text and the log.

/** How long the log's backlog is read before the bundle is made (the log is a follow stream). */
const LOG_READ_MS = 1_000;
const PIPELINE_CALL_MS = 5_000;

async function fromPipeline(location: string, path: string, auth: { authorization: string }): Promise<string> {
  try {
    const res = await fetch(`${location}${path}`, { headers: auth, signal: AbortSignal.timeout(PIPELINE_CALL_MS) });
    return await res.text();
  } catch (error) {
    return `the pipeline did not answer ${path}: ${(error as Error).message}\n`;
  }
}

async function logLines(deps: ApiDeps, row: PipelineRow): Promise<string> {
  const done = new AbortController();
  // The lines so far (follow=false); LOG_READ_MS still bounds a source slow to give them.
  const lines = await deps
    .pipelineLogs?.({ id: row.id, name: row.name }, done.signal, { follow: false })
    .catch(() => undefined);
  if (!lines) return 'no log: the pipeline has no process whose output this API server can read\n';
  const out: string[] = [];
  const timer = setTimeout(() => done.abort(), LOG_READ_MS);
  try {
    for await (const line of lines) {
      out.push(line);
      if (done.signal.aborted) break;
    }
  } catch {
    // The follow ended with the abort: what was read is the backlog.
  } finally {
    clearTimeout(timer);
  }
  return out.join('\n') + '\n';
}

export function registerSupportBundle(app: FastifyInstance, deps: ApiDeps): void {
  app.get<{ Params: NameParams }>('/v0/pipelines/:pipeline_name/support_bundle', async (request, reply) => {
    const name = request.params.pipeline_name;
    const row = await selectPipeline(deps.db, name, 'all');
    if (!row) throw unknownPipeline(name);
    const record = toRecord(row, 'all') as unknown as Record<string, JsonValue>;
    const secrets = [
      ...secretsOf(row.runtime_config),
      ...secretsOf(row.program_info?.input_connectors ?? null),
      ...secretsOf(row.program_info?.output_connectors ?? null),
    ];
    const mask = (text: string) => redactText(text, secrets);
    // Masked by member name first, then every secret found wherever else it is quoted (the program's
    // text, the relations' `connectors` property).
    const entries: ZipEntry[] = [
      { name: 'pipeline.json', data: mask(JSON.stringify(redactConfig(record), null, 2)) },
      { name: 'platform.json', data: JSON.stringify({ version: deps.build.version, revision: deps.build.revision }) },
      { name: 'logs.txt', data: mask(await logLines(deps, row)) },
    ];
    const location = row.deployment_resources_status === 'Provisioned' ? row.deployment_location : undefined;
    if (location)
      for (const [file, path] of [
        ['stats.json', '/stats'],
        ['metrics.txt', '/metrics'],
        ['checkpoints.json', '/checkpoints'],
      ] as const)
        entries.push({
          name: file,
          data: mask(await fromPipeline(location, path, deps.pipelineAuth(row.deployment_id ?? ''))),
        });
    else
      entries.push({
        name: 'not-deployed.txt',
        data: 'the pipeline is not deployed: no stats, metrics or checkpoints\n',
      });
    return reply
      .type('application/zip')
      .header('content-disposition', `attachment; filename="support-bundle-${row.name}.zip"`)
      .send(zip(entries));
  });
}
