import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { PipelineProcessConfig } from '../config.js';
import { bearerCheck } from '../http/bearer.js';
import { SvcError } from '../model/errors.js';

// Every request to the pipeline process carries its deployment's token (docs/security.md): the
// runner, the manager and the api-server derive it (src/http/pipeline-token.ts); nobody else has it.

/** The token this process requires: from --auth-token-file (local runner) or SVC_AUTH_TOKEN (a Secret). */
export async function readAuthToken(config: PipelineProcessConfig): Promise<string | undefined> {
  if (config.authToken) return config.authToken;
  if (!config.authTokenFile) return undefined;
  const token = (await readFile(config.authTokenFile, 'utf8')).trim();
  if (token.length < 16) throw new Error(`--auth-token-file ${config.authTokenFile} holds no token`);
  return token;
}

/** Answers 401 (the error body of seed section 7) to a request without the token, before any route runs. */
export function requireToken(app: FastifyInstance, token: string): void {
  const matches = bearerCheck(token);
  app.addHook('onRequest', async (request) => {
    if (!matches(request.headers.authorization))
      throw new SvcError(
        401,
        'Unauthorized',
        'The pipeline requires its deployment token: send "Authorization: Bearer <token>" (docs/security.md)',
      );
  });
}
