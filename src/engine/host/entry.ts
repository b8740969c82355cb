import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * V8's heap sizes: a worker refuses them in its execArgv (ERR_WORKER_INVALID_EXEC_ARGV), and takes
 * its own from `resourceLimits` (heap.ts). bench:engine's `--via engine` lanes run with one.
 */
const HEAP_FLAG = /^--(max|min)-(semi|old)-space-size(=|$)/;

/**
 * A worker thread running `name` of this folder: the built `.js` file (dist/, the product), or
 * the TypeScript source through tsx where the project runs from src/ (benchmarks, tests).
 */
export function startWorker(name: string, options: WorkerOptions): Worker {
  const built = new URL(`./${name}.js`, import.meta.url);
  if (existsSync(fileURLToPath(built))) return new Worker(built, options);
  return new Worker(new URL(`./${name}.ts`, import.meta.url), {
    ...options,
    execArgv: [
      ...process.execArgv.filter((a) => a !== '--import' && a !== 'tsx' && !HEAP_FLAG.test(a)),
      '--import',
      'tsx',
    ],
  });
}
