import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ProgramInfo } from '../../model/program.js';

// Reading an artifact back by its two checksums: the file named by the source checksum, whose bytes
// must hash to the integrity checksum (a damaged or replaced file is not served).

export const CHECKSUM = /^[0-9a-f]{64}$/;

const StoredArtifact = z.looseObject({ program_info: ProgramInfo });

export type ArtifactRead = { ok: true; bytes: Buffer; program_info: ProgramInfo } | { ok: false; reason: string };

export async function readArtifact(dataDir: string, source: string, integrity: string): Promise<ArtifactRead> {
  if (!CHECKSUM.test(source) || !CHECKSUM.test(integrity))
    return { ok: false, reason: 'checksums are 64 lower-case hexadecimal digits' };
  const bytes = await readFile(join(dataDir, 'artifacts', `${source}.json`)).catch(() => undefined);
  if (!bytes) return { ok: false, reason: `no artifact with source checksum ${source}` };
  if (createHash('sha256').update(bytes).digest('hex') !== integrity)
    return { ok: false, reason: `artifact ${source} does not have integrity checksum ${integrity}` };
  const parsed = StoredArtifact.safeParse(JSON.parse(bytes.toString('utf8')));
  if (!parsed.success) return { ok: false, reason: `artifact ${source} is not readable` };
  return { ok: true, bytes, program_info: parsed.data.program_info };
}
