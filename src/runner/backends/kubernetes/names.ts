// Names and labels of one pipeline's objects (KUBERNETES.md "Objects of one deployment").

import { LABEL_PIPELINE_ID, MANAGED_BY, STORAGE_CLAIM } from './template/index.js';

/** Label selector of every object the runner owns (its informers watch exactly these). */
export const MANAGED_SELECTOR = `app.kubernetes.io/managed-by=${MANAGED_BY}`;

/** The field manager of every server-side apply. */
export const FIELD_MANAGER = 'svc-runner';

/** `{id}`: the StatefulSet, Service and ConfigMap name. */
export const objectName = (pipelineId: string): string => `pipeline-${pipelineId}`;
export const podName = (pipelineId: string): string => `${objectName(pipelineId)}-0`;
export const pvcName = (pipelineId: string): string => `${STORAGE_CLAIM}-${objectName(pipelineId)}-0`;

/** The pipeline id an object belongs to, from its label (objects of others have none). */
export function pipelineIdOf(obj: { metadata?: { labels?: Record<string, string> } }): string | undefined {
  return obj.metadata?.labels?.[LABEL_PIPELINE_ID];
}

/** The pipeline id from an object name (`pipeline-<uuid>`, `pipeline-<uuid>-0`, `storage-pipeline-<uuid>-0`). */
export function pipelineIdFromName(name: string | undefined): string | undefined {
  const match = /(?:^|-)pipeline-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:-0)?$/.exec(
    name ?? '',
  );
  return match?.[1];
}
