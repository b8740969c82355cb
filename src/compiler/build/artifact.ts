import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProgramConfig } from '../../model/program-config.js';
import type { ProgramInfo } from '../../model/program.js';

// Stage 2 ("build"): the artifact the pipeline process runs is the program itself with its
// program_info and config, content-addressed: its file name is the sha256 of its source
// (`source_checksum`), and `integrity_checksum` is the sha256 of the bytes stored.

export interface ArtifactSource {
  program_code: string;
  udf_toml: string;
  program_info: ProgramInfo;
  program_config: ProgramConfig;
}

export interface Artifact {
  source_checksum: string;
  integrity_checksum: string;
  path: string;
  reused: boolean;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The source checksum covers everything that changes what runs, including the profile. */
export function sourceChecksum(source: ArtifactSource): string {
  const { program_code, udf_toml, program_info, program_config } = source;
  return sha256(JSON.stringify({ program_code, udf_toml, program_info, profile: program_config.profile ?? null }));
}

export async function buildArtifact(dataDir: string, source: ArtifactSource): Promise<Artifact> {
  const dir = join(dataDir, 'artifacts');
  const checksum = sourceChecksum(source);
  const path = join(dir, `${checksum}.json`);
  if (source.program_config.cache) {
    const existing = await readFile(path).catch(() => undefined);
    if (existing) return { source_checksum: checksum, integrity_checksum: sha256(existing), path, reused: true };
  }
  await mkdir(dir, { recursive: true });
  const bytes = Buffer.from(
    // Deterministic bytes (no build time): concurrent builds of one source write identical files,
    // so whichever rename lands last, every recorded integrity checksum still matches the file.
    `${JSON.stringify({ format: 'svc-artifact/1', source_checksum: checksum, ...source })}\n`,
  );
  // Write then rename: a reader (or a concurrent build of the same checksum) never sees half a file.
  const tmp = `${path}.${randomUUID()}.tmp`;
  await writeFile(tmp, bytes);
  await rename(tmp, path);
  return { source_checksum: checksum, integrity_checksum: sha256(bytes), path, reused: false };
}
