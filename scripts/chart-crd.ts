// `npm run chart:crd`: writes the chart's Pipeline CRD from the zod schemas (src/model/pipeline-crd.ts).
import { writeFileSync } from 'node:fs';
import { CRD_FILE } from '../src/model/pipeline-crd.js';
import { pipelineCrdYaml } from './crd-yaml.js';

const target = new URL(`../${CRD_FILE}`, import.meta.url);
writeFileSync(target, pipelineCrdYaml());
process.stdout.write(`wrote ${target.pathname}\n`);
