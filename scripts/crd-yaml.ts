// The chart's Pipeline CRD file, byte for byte, from src/model/pipeline-crd.ts (the writer and the drift test share it).
import { dump } from 'js-yaml';
import { pipelineCrd } from '../src/model/pipeline-crd.js';

export function pipelineCrdYaml(): string {
  const header =
    '# Generated from src/model/pipeline-resource.ts by `npm run chart:crd`: edit the zod schemas, not this file.\n';
  return header + dump(pipelineCrd(), { lineWidth: -1, noRefs: true, sortKeys: false });
}
