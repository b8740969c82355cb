// file_output: appends each batch's records to the file, one a line (created if absent).
import { appendFile } from 'node:fs/promises';
import type { OutputTransport } from '../output-endpoint.js';

export function fileOutput(config: { path: string }): OutputTransport {
  return {
    async send(batch) {
      const text = batch.records.map((r) => r + '\n').join('');
      await appendFile(config.path, text);
      return Buffer.byteLength(text);
    },
    close: () => Promise.resolve(),
  };
}
