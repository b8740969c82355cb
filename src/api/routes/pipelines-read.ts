import type { FastifyInstance } from 'fastify';
import { unknownPipeline } from '../../model/errors.js';
import { listPipelines, selectPipeline } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import { toRecord } from '../record.js';
import { type NameParams, selectorOf } from './params.js';

export function registerPipelineReads(app: FastifyInstance, { db }: ApiDeps): void {
  app.get('/v0/pipelines', async (request) => {
    const selector = selectorOf(request.query);
    const rows = await listPipelines(db, selector);
    return rows.map((row) => toRecord(row, selector));
  });

  app.get<{ Params: NameParams }>('/v0/pipelines/:pipeline_name', async (request) => {
    const selector = selectorOf(request.query);
    const name = request.params.pipeline_name;
    const row = await selectPipeline(db, name, selector);
    if (!row) throw unknownPipeline(name);
    return toRecord(row, selector);
  });
}
