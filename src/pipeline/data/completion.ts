// GET /completion_status?token=: complete once a step applied every record the token covers (an
// ingress request's, or what an input connector had ingested when the token was asked for) and every
// output has its changes: egress streams were handed them (steps wait for them), output connectors
// sent them. Inprogress before, 410 for a token of an earlier incarnation of the pipeline.
import type { FastifyInstance } from 'fastify';
import { CompletionQuery } from '../../model/data-queries.js';
import { badRequest, SvcError } from '../../model/errors.js';
import type { PipelineController } from '../controller.js';
import { engineOf, parseParams } from './common.js';
import { readToken, type DataState } from './data-state.js';

export function completionRoute(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.get('/completion_status', async (request, reply) => {
    const { token } = parseParams(CompletionQuery, request.query, 'InvalidCompletionToken');
    const parsed = readToken(token);
    if (!parsed)
      throw badRequest('InvalidCompletionToken', 'token: not a completion token of this service', { field: 'token' });
    engineOf(ctl, state);
    if (parsed.incarnation !== state.incarnation)
      throw new SvcError(410, 'CompletionTokenExpired', 'token: issued by an earlier incarnation of the pipeline', {
        field: 'token',
      });
    if (state.sentSeq() >= parsed.seq) return { status: 'complete', step: state.lastStep };
    return reply.status(202).send({ status: 'inprogress' });
  });
}
