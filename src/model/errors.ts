/**
 * The error body of seed section 7, as one typed error that every layer may throw. The API maps it
 * to an HTTP answer unchanged; the runner stores it as `deployment_error`.
 */
import type { JsonValue } from './json.js';

export type ErrorDetails = { [key: string]: JsonValue } | null;

export type ErrorBody = {
  message: string;
  error_code: string;
  details: ErrorDetails;
};

export class SvcError extends Error {
  override readonly name = 'SvcError';
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly details: ErrorDetails = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  toBody(): ErrorBody {
    return { message: this.message, error_code: this.errorCode, details: this.details };
  }
}

export const badRequest = (code: string, message: string, details: ErrorDetails = null): SvcError =>
  new SvcError(400, code, message, details);

export const unknownPipeline = (name: string): SvcError =>
  new SvcError(404, 'UnknownPipelineName', `Unknown pipeline name '${name}'`, {
    pipeline_name: name,
  });

export const duplicateName = (name: string): SvcError =>
  new SvcError(409, 'DuplicateName', `A pipeline named '${name}' already exists`, { name });

export const notDeployed = (name: string, status: string): SvcError =>
  new SvcError(
    503,
    'PipelineInteractionNotDeployed',
    `Pipeline '${name}' is not deployed (deployment status: ${status}); start it first`,
    { pipeline_name: name, status },
  );

/** 503: the pipeline (or the runner holding its log) did not answer; `why` says what was tried. */
export const pipelineUnreachable = (name: string, why: string, details: ErrorDetails = null): SvcError =>
  new SvcError(503, 'PipelineInteractionUnreachable', `Pipeline '${name}' cannot be reached: ${why}`, {
    pipeline_name: name,
    ...details,
  });
