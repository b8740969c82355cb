import Fastify from 'fastify';
import type { Logger } from '../logging/logger.js';
import { type ArtifactRead, CHECKSUM, readArtifact } from './build/read-artifact.js';
import type { Rebuilt } from './build/rebuild.js';
import { clientErrorHandler } from '../http/client-error.js';

// The compiler-server's artifact endpoints (issue 3): what a pipeline process fetches to run.
// Artifacts are content-addressed and shared by pipelines with the same program, so the pipeline
// id and program version in the path name the request; the checksums select and verify the bytes.

export interface ArtifactServerOptions {
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * With port 0: the port to try first (the one the previous run used, so that pipeline processes
   * a crashed manager left behind find their program at the same URL); another is picked if taken.
   */
  preferredPort?: number;
  log: Logger;
  /**
   * An artifact this data dir lacks: rebuild it from the pipeline's record (rebuild.ts), then serve
   * it. Absent: a miss is a 404.
   */
  rebuild?: (pipelineId: string, wanted: { source: string; integrity: string }) => Promise<Rebuilt>;
}

interface Params {
  pipeline_id: string;
  program_version: string;
  source_checksum: string;
  integrity_checksum: string;
}

const PATH = ':pipeline_id/:program_version/:source_checksum/:integrity_checksum';

export async function startArtifactServer(
  opts: ArtifactServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const app = Fastify({ logger: false, clientErrorHandler });
  const lookup = async ({ pipeline_id, source_checksum, integrity_checksum }: Params): Promise<ArtifactRead> => {
    const found = await readArtifact(opts.dataDir, source_checksum, integrity_checksum);
    if (found.ok || !opts.rebuild || !CHECKSUM.test(source_checksum) || !CHECKSUM.test(integrity_checksum))
      return found;
    const rebuilt = await opts.rebuild(pipeline_id, { source: source_checksum, integrity: integrity_checksum });
    if (!rebuilt.ok) return { ok: false, reason: `${found.reason}; not rebuilt: ${rebuilt.reason}` };
    opts.log.info({ pipeline_id, source_checksum }, 'rebuilt artifact %s from the pipeline record', source_checksum);
    return readArtifact(opts.dataDir, source_checksum, integrity_checksum);
  };
  const notFound = (reason: string) => ({ message: reason, error_code: 'ArtifactNotFound', details: null });

  app.get<{ Params: Params }>(`/binary/${PATH}`, async (request, reply) => {
    const found = await lookup(request.params);
    if (!found.ok) return reply.status(404).send(notFound(found.reason));
    return reply.type('application/json').send(found.bytes);
  });
  app.get<{ Params: Params }>(`/program_info/${PATH}`, async (request, reply) => {
    const found = await lookup(request.params);
    if (!found.ok) return reply.status(404).send(notFound(found.reason));
    return found.program_info;
  });

  // Probes of `svc compiler-server` (the chart's readiness and liveness): artifacts are served from
  // the data dir, so listening is being ready.
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async () => ({ status: 'ready' }));

  await listen(app, opts);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  const url = `http://${opts.host}:${port}`;
  opts.log.info({ url }, 'artifact server listening');
  return { url, close: () => app.close() };
}

async function listen(app: ReturnType<typeof Fastify>, opts: ArtifactServerOptions): Promise<void> {
  if (opts.port === 0 && opts.preferredPort) {
    try {
      await app.listen({ host: opts.host, port: opts.preferredPort });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  await app.listen({ host: opts.host, port: opts.port });
}
