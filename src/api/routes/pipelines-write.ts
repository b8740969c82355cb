import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { checkDelete } from '../../lifecycle/actions.js';
import { type EditableFields, planEdit } from '../../lifecycle/edit.js';
import { forPipeline, forTarget } from '../../logging/logger.js';
import { badRequest, duplicateName } from '../../model/errors.js';
import { deletePipelineNamed } from '../../store/pipelines/delete.js';
import { isUniqueViolation } from '../../model/database-errors.js';
import { insertPipeline } from '../../store/pipelines/insert.js';
import { mutatePipeline } from '../../store/pipelines/mutate.js';
import type { PipelineRow } from '../../model/pipeline-row.js';
import { assertUnmanaged, managedByResource } from '../../model/pipeline-resource.js';
import { pipelineExists } from '../../store/pipelines/select.js';
import type { ApiDeps } from '../deps.js';
import { toRecord } from '../record.js';
import { compileCreateBody, compilePatchBody, ignoredMembers } from './pipelines-body.js';
import type { NameParams } from './params.js';

export function registerPipelineWrites(app: FastifyInstance, deps: ApiDeps): void {
  const { db, build } = deps;
  const log = forTarget(deps.log, 'svc::api::pipelines');
  // Each unknown member is logged once per process, not once per request: a client that always
  // sends it would otherwise fill the log.
  const logged = new Set<string>();
  const noteIgnored = (body: unknown) => {
    const fresh = ignoredMembers(body).filter((path) => !logged.has(path));
    if (fresh.length === 0) return;
    for (const path of fresh) logged.add(path);
    log.info({ members: fresh }, 'members unknown to this version are kept as sent and ignored: %s', fresh.join(', '));
  };

  const created = (row: PipelineRow) => {
    forPipeline(log, row).info('pipeline created');
    return toRecord(row);
  };

  /** Applies the edit rules to an existing pipeline; a rename onto a taken name is 409. */
  const edit = async (name: string, wanted: Partial<EditableFields>) => {
    try {
      const { after, changed } = await mutatePipeline(db, name, (row) => {
        assertUnmanaged(row, 'edit');
        return planEdit(row, wanted);
      });
      if (changed) forPipeline(log, after).info('pipeline updated (version %d)', after.version);
      return after;
    } catch (error) {
      if (isUniqueViolation(error) && wanted.name) throw duplicateName(wanted.name);
      throw error;
    }
  };

  app.post('/v0/pipelines', async (request, reply) => {
    const fields = compileCreateBody(request.body);
    noteIgnored(request.body);
    const row = await insertPipeline(db, randomUUID(), build.version, fields);
    return reply.status(201).send(created(row));
  });

  app.put<{ Params: NameParams }>('/v0/pipelines/:pipeline_name', async (request, reply) => {
    const name = request.params.pipeline_name;
    const fields = compileCreateBody(request.body);
    noteIgnored(request.body);
    if (await pipelineExists(db, name)) return reply.status(200).send(toRecord(await edit(name, fields)));
    if (fields.name !== name) {
      throw badRequest(
        'CannotRenameNonExistingPipeline',
        `Pipeline '${name}' does not exist, so it cannot be renamed to '${fields.name}'`,
        { pipeline_name: name, name: fields.name },
      );
    }
    return reply.status(201).send(created(await insertPipeline(db, randomUUID(), build.version, fields)));
  });

  app.patch<{ Params: NameParams }>('/v0/pipelines/:pipeline_name', async (request) => {
    const wanted = compilePatchBody(request.body);
    noteIgnored(request.body);
    return toRecord(await edit(request.params.pipeline_name, wanted));
  });

  app.delete<{ Params: NameParams }>('/v0/pipelines/:pipeline_name', async (request, reply) => {
    const name = request.params.pipeline_name;
    const row = await deletePipelineNamed(db, name, (r) => managedByResource(r, 'delete') ?? checkDelete(r));
    forPipeline(log, row).info('pipeline deleted');
    return reply.status(200).send();
  });
}
