import { createHmac } from 'node:crypto';

// The pipeline process's HTTP is authenticated with a per-deployment token (docs/security.md). The
// token is derived, not stored: HMAC-SHA256 of the deployment id under the platform's pipeline key
// (one random key per database, made by migration 006). The runner writes it where only the
// pipeline reads it (a 0600 file beside the deployment config, or a Kubernetes Secret); the runner,
// manager and api-server derive it again for each call. So no token sits in a pipeline's record or
// in a template, and one pipeline's token opens no other pipeline, nor a later deployment of itself.

/** File name of the token in a local deployment's directory, and the key of the Kubernetes Secret. */
export const PIPELINE_TOKEN_KEY = 'auth-token';

export function pipelineToken(platformKey: string, deploymentId: string): string {
  return createHmac('sha256', platformKey).update(`svc-pipeline:${deploymentId}`).digest('hex');
}

/** The header a caller of a pipeline sends. */
export const bearerHeader = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` });

/** Derives the header for one deployment: what every caller of a pipeline holds. */
export type PipelineAuth = (deploymentId: string) => { authorization: string };

export const pipelineAuth =
  (platformKey: string): PipelineAuth =>
  (deploymentId) =>
    bearerHeader(pipelineToken(platformKey, deploymentId));
