import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOCATOR_ENV } from '../../../heap/allocator.js';
import { type SpawnSpec, spawnPipeline } from './spawn.js';

// A real child process in the place of `svc pipeline`: a script that writes the environment it was
// started with into the pipeline's log, as the local runner starts every pipeline.

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-spawn-'));
  await writeFile(join(dir, 'env.mjs'), 'console.log(JSON.stringify(process.env));\n');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function environmentOf(name: string, env: Record<string, string>): Promise<Record<string, string>> {
  const spec: SpawnSpec = {
    command: { program: process.execPath, args: [join(dir, 'env.mjs')] },
    configFile: join(dir, 'config.json'),
    tokenFile: join(dir, 'token'),
    port: 1,
    initial: 'running',
    deploymentId: name,
    env,
    logFile: join(dir, `${name}.log`),
    initdbDump: join(dir, 'dump.tar'),
    compileCache: join(dir, 'cache'),
  };
  const child: ChildProcess = await spawnPipeline(spec);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return JSON.parse(await readFile(spec.logFile, 'utf8')) as Record<string, string>;
}

describe('spawnPipeline', () => {
  it("starts a pipeline with the allocator's environment (heap/allocator.ts)", async () => {
    const env = await environmentOf('plain', { FOO: 'bar' });
    for (const [name, value] of Object.entries(ALLOCATOR_ENV)) expect(env[name], name).toBe(value);
    expect(env['FOO']).toBe('bar');
    expect(env['NODE_COMPILE_CACHE']).toBe(join(dir, 'cache'));
  });

  it('lets the given environment (the manager’s, the user’s runtime_config.env) override it', async () => {
    const env = await environmentOf('overridden', { MALLOC_MMAP_THRESHOLD_: '4194304' });
    expect(env['MALLOC_MMAP_THRESHOLD_']).toBe('4194304');
  });
});
