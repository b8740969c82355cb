import { ProgramInfo } from '../../model/program.js';
import type { ArtifactRecord } from '../../store/compiler/artifact-source.js';
import { buildArtifact } from './artifact.js';

// An artifact missing from this compiler-server's data dir is rebuilt from the pipeline's record
// (issue 29): the bytes are deterministic, so the rebuild is the very file the pipeline was compiled
// to, which the integrity checksum then proves. The data dir is a cache, the database the truth:
// a pod recreated with an empty emptyDir, or another replica, serves every compiled program.

export type Rebuilt = { ok: true } | { ok: false; reason: string };

export async function rebuildArtifact(
  dataDir: string,
  record: ArtifactRecord | undefined,
  wanted: { source: string; integrity: string },
): Promise<Rebuilt> {
  if (!record) return { ok: false, reason: 'no compiled pipeline with that id' };
  // The pipeline was edited and compiled since: that program is not this artifact's any more.
  if (record.program_binary_source_checksum !== wanted.source)
    return { ok: false, reason: `the pipeline's program is no longer ${wanted.source}` };
  const info = ProgramInfo.safeParse(record.program_info);
  if (!info.success) return { ok: false, reason: 'the record has no valid program_info' };
  const built = await buildArtifact(dataDir, {
    program_code: record.program_code,
    udf_toml: record.udf_toml,
    program_info: info.data,
    // As compiled: program_config is part of the bytes. (With cache on, a damaged file of that
    // checksum is reused, and then fails the integrity check below, as it fails the read.)
    program_config: record.program_config,
  });
  if (built.source_checksum !== wanted.source || built.integrity_checksum !== wanted.integrity)
    return {
      ok: false,
      reason: `rebuilding ${wanted.source} gave other bytes (integrity ${built.integrity_checksum})`,
    };
  return { ok: true };
}
