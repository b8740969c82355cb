import { copyFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

// A benchmark's child that times our code runs it as JavaScript, as a pipeline runs from dist/.
// Under tsx it carried tsx's loader, which Node runs on a thread of its own with a heap of its own,
// and the sources it had compiled: on 2026-12-07, `node --import tsx` of an empty script took 85 MiB
// of RSS against 39 for `node`, and bench:engine's native lane about 45 MiB more than the same
// engine from dist/. So src/, bench/ and test/support/ are compiled file by file (esbuild: types
// stripped, nothing bundled, so that every module keeps its place and its import.meta.url) into a
// cache under node_modules, where their imports of packages resolve as from the repository.

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'node_modules', '.cache', 'svc-bench-js');
const FOLDERS = ['src', 'bench', 'test/support'];

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* sources(path);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) yield path;
  }
}

/** `script` (a .ts file of the repository) compiled with everything it may import; its .js path. */
export async function compiledScript(script: string): Promise<string> {
  const entryPoints = FOLDERS.flatMap((f) => [...sources(join(ROOT, f))]);
  await build({ entryPoints, outdir: OUT, outbase: ROOT, format: 'esm', platform: 'node', logLevel: 'warning' });
  // Read by src/version.ts, as dist/ has it one level up.
  copyFileSync(join(ROOT, 'package.json'), join(OUT, 'package.json'));
  return join(OUT, relative(ROOT, script).replace(/\.ts$/, '.js'));
}
