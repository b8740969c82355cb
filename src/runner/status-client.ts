import { ExtendedRuntimeStatus } from '../model/deployment.js';
import type { ErrorBody } from '../model/errors.js';
import { bearerHeader } from '../http/pipeline-token.js';
import type { Observation } from '../lifecycle/resources.js';
import { getText, type TextResponse } from '../http/http-get.js';

const STATUS_TIMEOUT_MS = 2_000;

/** GET {location}/status → the observation of LIFECYCLE.md (200, 503, other, unreachable). */
export async function fetchRuntimeStatus(location: string, token: string): Promise<Observation> {
  let res: TextResponse;
  try {
    res = await getText(`${location}/status`, STATUS_TIMEOUT_MS, { headers: bearerHeader(token) });
  } catch {
    return { kind: 'status-unreachable' };
  }
  const { text } = res;
  if (res.status === 503) return { kind: 'status-unavailable' };
  if (res.status !== 200) return { kind: 'status-error', error: errorBodyOf(res.status, text) };
  const parsed = ExtendedRuntimeStatus.safeParse(safeJson(text));
  if (!parsed.success) {
    return {
      kind: 'status-error',
      error: {
        error_code: 'PipelineProcessError',
        message: `The pipeline answered /status with an invalid body: ${parsed.error.issues[0]?.message ?? ''}`,
        details: null,
      },
    };
  }
  return { kind: 'status', status: parsed.data };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The pipeline's own error body when it sent one; otherwise one that says what came back. */
function errorBodyOf(status: number, text: string): ErrorBody {
  const body = safeJson(text) as Partial<ErrorBody> | undefined;
  if (body && typeof body.error_code === 'string' && typeof body.message === 'string') {
    return { error_code: body.error_code, message: body.message, details: body.details ?? null };
  }
  return {
    error_code: 'PipelineProcessError',
    message: `The pipeline answered /status with HTTP ${status}`,
    details: { status, body: text.slice(0, 1000) },
  };
}
