import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { jsonEqual } from '../model/json.js';
import { ProgramInfo } from '../model/program.js';
import { getText, type TextResponse } from '../http/http-get.js';

// Fetching what the process runs: the compiler's artifact (src/compiler/build/artifact.ts) and its
// program_info, each named by an http(s) URL of the artifact server or a file path.

export const PipelineArtifact = z.looseObject({
  format: z.literal('svc-artifact/1'),
  source_checksum: z.string().regex(/^[0-9a-f]{64}$/),
  program_code: z.string(),
  udf_toml: z.string(),
  program_info: ProgramInfo,
});
export type PipelineArtifact = z.infer<typeof PipelineArtifact>;

export class ArtifactError extends Error {
  override readonly name = 'ArtifactError';
}

const FETCH_TIMEOUT_MS = 30_000;
/**
 * Waits before each further attempt: a compiler-server restarting (a manager restarted after a
 * crash serves at the same port again) or a busy machine recovers within seconds.
 */
const RETRY_DELAYS_MS = [1_000, 2_000, 4_000];

/** Far above any program's artifact; a bound so that a wrong URL cannot fill the memory. */
const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024;

/**
 * By node:http, not fetch: a process's first fetch loads undici, ~60 ms of CPU measured in a
 * pipeline process's start, for one small JSON document.
 */
async function getWithRetry(ref: string): Promise<TextResponse> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await getText(ref, FETCH_TIMEOUT_MS, { maxBytes: MAX_ARTIFACT_BYTES });
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined) {
        throw new ArtifactError(`cannot fetch ${ref} (${attempt + 1} attempts): ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

async function fetchText(ref: string): Promise<string> {
  if (/^https?:\/\//i.test(ref)) {
    const { status, text } = await getWithRetry(ref);
    if (status < 200 || status > 299)
      throw new ArtifactError(`cannot fetch ${ref}: HTTP ${status} ${text.slice(0, 200)}`);
    return text;
  }
  const path = ref.startsWith('file://') ? new URL(ref).pathname : ref;
  return readFile(path, 'utf8').catch((error: unknown) => {
    throw new ArtifactError(`cannot read ${ref}: ${(error as Error).message}`);
  });
}

function parse<T>(ref: string, text: string, schema: z.ZodType<T>, what: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ArtifactError(`${what} ${ref} is not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ArtifactError(`${what} ${ref} is not valid: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  }
  return parsed.data;
}

/**
 * Both references, fetched together. The artifact carries its own program_info; the separate one
 * must describe the same program, else the runner mixed up two builds.
 */
export async function loadArtifact(binaryRef: string, programInfoRef: string): Promise<PipelineArtifact> {
  const [binary, info] = await Promise.all([fetchText(binaryRef), fetchText(programInfoRef)]);
  const artifact = parse(binaryRef, binary, PipelineArtifact, 'artifact');
  const programInfo = parse(programInfoRef, info, ProgramInfo, 'program_info');
  if (!jsonEqual(programInfo.schema, artifact.program_info.schema))
    throw new ArtifactError(`program_info ${programInfoRef} does not describe the program of ${binaryRef}`);
  return artifact;
}
