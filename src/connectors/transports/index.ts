// Which transport a declaration names → its implementation. The Kafka and PostgreSQL clients are
// loaded only by pipelines that use them: a pipeline process without connectors reads neither.
import type { JsonValue } from '../../model/json.js';
import type { InputRun } from '../input-endpoint.js';
import type { OutputTransport } from '../output-endpoint.js';
import type { InputConnector, OutputConnector } from '../schema.js';
import { datagen } from './datagen.js';
import { fileInput } from './file-input.js';
import { fileOutput } from './file-output.js';
import { urlInput } from './url-input.js';

/**
 * `resume`: the endpoint's position in the checkpoint the pipeline resumed from (Kafka offsets, a
 * file's offset, datagen's next row, whether a URL or query was read): the input goes on from there.
 */
export async function inputRun(c: InputConnector, endpointName: string, resume?: JsonValue): Promise<InputRun> {
  const t = c.transport;
  const wholeDocument = c.format?.name === 'json' && c.format.config.array;
  const perMessage = wholeDocument || (c.format?.name === 'csv' && c.format.config.headers);
  switch (t.name) {
    case 'file_input':
      return fileInput(t.config, wholeDocument, resume);
    case 'url_input':
      return urlInput(t.config, resume);
    case 'datagen':
      return datagen(t.config, resume);
    case 'kafka_input':
      return (await import('./kafka-input.js')).kafkaInput(t.config, endpointName, perMessage, resume);
    case 'postgres_input':
      return (await import('./postgres-input.js')).postgresInput(t.config, resume);
  }
}

export async function outputTransport(c: OutputConnector, endpointName: string): Promise<OutputTransport> {
  const t = c.transport;
  switch (t.name) {
    case 'file_output':
      return fileOutput(t.config);
    case 'kafka_output':
      return (await import('./kafka-output.js')).kafkaOutput(t.config, endpointName);
    case 'postgres_output':
      return (await import('./postgres-output.js')).postgresOutput(t.config);
  }
}
