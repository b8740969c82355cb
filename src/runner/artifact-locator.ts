import type { RunnerRow } from '../model/pipeline-row.js';
import type { ArtifactLocator } from './deployment-config.js';

/** The compiler's artifact server, addressed by the build the pipeline's row records. */
export function artifactServerLocator(baseUrl: string): ArtifactLocator {
  const path = (row: RunnerRow) => {
    if (!row.program_binary_source_checksum || !row.program_binary_integrity_checksum) {
      throw new Error(`pipeline ${row.id} has no compiled build recorded`);
    }
    return `${row.id}/${row.program_version}/${row.program_binary_source_checksum}/${row.program_binary_integrity_checksum}`;
  };
  return {
    binaryRef: (row) => `${baseUrl}/binary/${path(row)}`,
    programInfoRef: (row) => `${baseUrl}/program_info/${path(row)}`,
  };
}
