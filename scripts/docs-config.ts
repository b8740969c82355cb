// `npm run docs:config`: writes docs/configuration.md from the zod schemas (src/model/config-reference.ts).
import { writeFileSync } from 'node:fs';
import { configReference } from '../src/model/config-reference.js';

const target = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(target, configReference());
process.stdout.write(`wrote ${target.pathname}\n`);
