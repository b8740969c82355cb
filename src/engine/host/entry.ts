import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running `name` of this folder: the built `.js` file (dist/, the product), or
 * the TypeScript source through tsx where the project runs from src/ (benchmarks, tests).
 */
export function startWorker(name: string, options: WorkerOptions): Worker {
  const built = new URL(`./${name}.js`, import.meta.url);
  if (existsSync(fileURLToPath(built))) return new Worker(built, options);
  return new Worker(new URL(`./${name}.ts`, import.meta.url), {
    ...options,
    execArgv: [...process.execArgv.filter((a) => a !== '--import' && a !== 'tsx'), '--import', 'tsx'],
  });
}
