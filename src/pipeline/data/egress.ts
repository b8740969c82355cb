// POST /egress/{view}: a chunked stream of the view's changes, one JSON chunk a line, from connect on
// (the current contents first with send_snapshot, materialized relations only). Every chunk carries
// `processed_steps`; a step that did not change the view sends a chunk with that count alone, and a
// first one is sent at connect, so a client knows how far the stream has caught up. An empty line
// after 3 s of silence keeps proxies from closing the connection.
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { jsonColumnNames } from '../../engine/json-columns.js';
import { encodeChunk, jsonChunkLine } from '../../formats/encode.js';
import { EgressQuery } from '../../model/data-queries.js';
import type { StepResult } from '../../engine/types.js';
import { badRequest } from '../../model/errors.js';
import type { PipelineController } from '../controller.js';
import { engineOf, parseParams } from './common.js';
import type { DataState, OutputEndpoint } from './data-state.js';

const KEEPALIVE_MS = 3000;
/** backpressure=false: chunks are dropped (and counted) while this many bytes wait for the reader. */
const DROP_ABOVE_BYTES = 8 * 1024 * 1024;

/** A chunk without data: how far the stream has caught up. */
const progressChunk = (sequence_number: number, processed_steps: number): string =>
  JSON.stringify({ sequence_number, processed_steps }) + '\n';

export function egressRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.post<{ Params: { view: string } }>('/egress/:view', async (request, reply) => {
    const q = parseParams(EgressQuery, request.query, 'InvalidEgressParameters');
    const engine = engineOf(ctl, state);
    const rel = engine.resolve(request.params.view, 'view') ?? engine.resolve(request.params.view, 'table');
    if (!rel)
      throw badRequest('UnknownOutputView', `no view or table named ${request.params.view}`, {
        view: request.params.view,
      });
    if (q.send_snapshot && !rel.materialized)
      throw badRequest('NotMaterialized', `send_snapshot: ${rel.name} is not materialized`, {
        field: 'send_snapshot',
        view: rel.name,
      });
    const columns = rel.columns.map((c) => c.name);
    const jsonColumns = jsonColumnNames(rel.columns);
    const out = new PassThrough();
    const endpoint: OutputEndpoint = {
      endpoint_name: `${rel.name}.api-egress-${state.outputs.size}`,
      view: rel.name,
      transmitted_records: 0,
      transmitted_bytes: 0,
      dropped_chunks: 0,
      num_encode_errors: 0,
      num_transport_errors: 0,
    };
    state.outputs.add(endpoint);
    let seq = 0;
    let lastWrite = Date.now();
    const write = (line: string, records: number): Promise<void> | undefined => {
      if (!q.backpressure && out.writableLength > DROP_ABOVE_BYTES) {
        endpoint.dropped_chunks++;
        return undefined;
      }
      lastWrite = Date.now();
      endpoint.transmitted_records += records;
      endpoint.transmitted_bytes += line.length;
      const ok = out.write(line);
      // backpressure=true: the step waits until the reader has taken what is queued.
      return ok || !q.backpressure || out.destroyed ? undefined : new Promise((r) => out.once('drain', () => r()));
    };
    const emit = (result: StepResult): Promise<void> | undefined => {
      // Written by the engine's thread as json_data already: sent as it is, never parsed here.
      const encoded = q.format === 'json' ? result.jsonData?.get(rel.name) : undefined;
      const count = encoded ? encoded.changes : (result.outputs.get(rel.name)?.length ?? 0);
      if (count === 0) return write(progressChunk(seq++, result.step), 0);
      const head = { sequence_number: seq++, snapshot: false };
      if (encoded) return write(jsonChunkLine(head, encoded.json, result.step), count);
      const line = encodeChunk(head, q.format, result.outputs.get(rel.name) ?? [], columns, jsonColumns);
      return write(line.slice(0, -2) + `,"processed_steps":${result.step}}\n`, count);
    };
    // Subscribed before the snapshot is read, so no step falls between them; steps the snapshot
    // already holds (engine turns are serial: it reflects every step finished before it) are skipped.
    // The view's changes are read out of the engine only while someone watches it: a step already
    // running when the stream connects does not carry them, so the stream starts after it.
    let pending: StepResult[] | undefined = q.send_snapshot ? [] : undefined;
    const watching = engine.watch(rel.name);
    const stopListening = state.subscribe((result) => {
      if (result.step < watching.fromStep) return undefined;
      return pending ? void pending.push(result) : emit(result);
    });
    const unsubscribe = () => {
      stopListening();
      watching.release();
    };
    write(progressChunk(seq++, Math.max(state.lastStep, watching.fromStep - 1)), 0);
    if (q.send_snapshot) {
      let rows;
      try {
        rows = await engine.snapshot(rel.name);
      } catch (error) {
        unsubscribe();
        state.outputs.delete(endpoint);
        throw error;
      }
      const upTo = state.lastStep;
      const changes = rows.map((row) => ({ weight: 1, row }));
      const snapshotHead = { sequence_number: seq++, snapshot: true };
      const line = encodeChunk(snapshotHead, q.format, changes, columns, jsonColumns);
      write(line.slice(0, -2) + `,"processed_steps":${upTo}}\n`, changes.length);
      for (const result of pending ?? []) if (result.step > upTo) void emit(result);
      pending = undefined;
    }
    const keepalive = setInterval(() => {
      // A stream whose reader is behind has data waiting: no keep-alive needed, and writing one
      // would leave a 'drain' listener behind each second.
      if (Date.now() - lastWrite >= KEEPALIVE_MS && !out.writableNeedDrain) void write('\n', 0);
    }, KEEPALIVE_MS / 3);
    const close = () => {
      clearInterval(keepalive);
      unsubscribe();
      forget();
      state.outputs.delete(endpoint);
      out.end();
    };
    const forget = state.openStreams.add(close);
    request.raw.once('close', close);
    out.once('error', close);
    return reply.header('content-type', 'application/x-ndjson').send(out);
  });
}
