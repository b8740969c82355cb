// POST /checkpoint answers its sequence number (the ecosystem's clients poll checkpoint_status with
// it); GET /checkpoint_status says which sequence number last succeeded and which last failed;
// GET /checkpoints lists the checkpoints in storage, oldest first, in the established shape (`uuid`,
// `processed_records`, …) with svc's own members beside it.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../model/errors.js';
import type { PipelineController } from '../controller.js';
import { parseParams } from './common.js';
import type { DataState } from './data-state.js';

const StatusQuery = z.looseObject({ incarnation_uuid: z.string().optional() });

export function checkpointRoutes(app: FastifyInstance, ctl: PipelineController, state: DataState): void {
  app.post('/checkpoint', async () => {
    const seq = ++state.checkpoints.requested;
    try {
      const written = await ctl.checkpoint();
      state.checkpoints.success = Math.max(state.checkpoints.success ?? 0, seq);
      return {
        checkpoint_sequence_number: seq,
        incarnation_uuid: state.incarnation,
        checkpoint_id: written.id,
        created_at: written.created_at,
      };
    } catch (error) {
      state.checkpoints.failure = { sequence_number: seq, error: (error as Error).message };
      throw error;
    }
  });
  app.get('/checkpoints', async () =>
    ctl.store.summaries().map((c) => ({
      uuid: c.id,
      identifier: null,
      created_at: c.created_at,
      program_checksum: c.program_checksum,
      processed_records: c.rows,
      // Not measured per checkpoint here; the established clients read them, so present and null.
      size: null,
      steps: null,
      fingerprint: null,
      rows: c.rows,
    })),
  );
  app.get('/checkpoint_status', async (request) => {
    const { incarnation_uuid } = parseParams(StatusQuery, request.query, 'InvalidCheckpointStatus');
    if (incarnation_uuid !== undefined && incarnation_uuid !== state.incarnation)
      throw new SvcError(
        410,
        'IncarnationUuidMismatch',
        'incarnation_uuid: the pipeline restarted since that checkpoint was requested',
        {
          field: 'incarnation_uuid',
          incarnation_uuid: state.incarnation,
        },
      );
    return { success: state.checkpoints.success ?? null, failure: state.checkpoints.failure ?? null };
  });
}
