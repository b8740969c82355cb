// A cheap guard on the Dockerfile's must-haves (issue 7); there is no Docker engine here to build it,
// so this is no proof that it builds, only that nobody drops the pin, the stages or the user.
import { describe, expect, it } from 'vitest';
import { ALLOCATOR_ENV } from '../../src/heap/allocator.js';
import { readRepoFile } from './helm.js';

interface Instruction {
  op: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [op = '', ...rest] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: rest.join(' ') };
    });
}

const DIGEST_PINNED = /^[a-z0-9./_-]+(:[\w.-]+)?@sha256:[a-f0-9]{64}$/;

describe('Dockerfile', () => {
  const all = instructions(readRepoFile('Dockerfile'));
  const args = new Map(
    all.filter((i) => i.op === 'ARG').map((i) => [i.args.split('=')[0] ?? '', i.args.split('=').slice(1).join('=')]),
  );
  const stages: Instruction[][] = [];
  for (const i of all) {
    if (i.op === 'FROM') stages.push([]);
    stages.at(-1)?.push(i);
  }
  const final = stages.at(-1) ?? [];
  const base = (from: Instruction) => {
    const image = from.args.split(/\s+/)[0] ?? '';
    const arg = /^\$\{?(\w+)\}?$/.exec(image)?.[1];
    return arg ? (args.get(arg) ?? '') : image;
  };

  it('is multi-stage, every base a node 22 image pinned by digest', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      const image = base(stage[0] as Instruction);
      expect(image).toMatch(DIGEST_PINNED);
      expect(image).toMatch(/^node:22[\w.-]*@/);
    }
  });

  it('builds with every dependency, then keeps production ones only', () => {
    const build = stages[0]?.map((i) => `${i.op} ${i.args}`).join('\n') ?? '';
    expect(build).toMatch(/RUN npm ci\b/);
    expect(build).toMatch(/npm run build/);
    expect(build).toMatch(/npm prune --omit=dev/);
    // The runtime stage takes files from the build stage only, never from the context.
    for (const copy of final.filter((i) => i.op === 'COPY')) expect(copy.args).toMatch(/^--from=build\b/);
    expect(final.some((i) => i.op === 'RUN' && /npm (ci|install)/.test(i.args))).toBe(false);
  });

  it('runs as a non-root user with svc as the entrypoint', () => {
    const user = final.filter((i) => i.op === 'USER').at(-1)?.args ?? '';
    expect(user).not.toBe('');
    expect(user.split(':')[0]).not.toMatch(/^(root|0)$/);
    const entry = final.filter((i) => i.op === 'ENTRYPOINT').at(-1)?.args ?? '';
    expect(JSON.parse(entry)).toEqual(['node', '/app/dist/cli.js']);
  });

  it("sets the allocator's environment the local runner gives its pipelines (src/heap/allocator.ts)", () => {
    const env = final
      .filter((i) => i.op === 'ENV')
      .flatMap((i) => i.args.split(/\s+/))
      .map((pair) => pair.split('='));
    const set = new Map(env.map(([name = '', ...value]) => [name, value.join('=')]));
    for (const [name, value] of Object.entries(ALLOCATOR_ENV)) expect(set.get(name), name).toBe(value);
  });

  it('has a .dockerignore that keeps the checkout’s bulk out of the context', () => {
    const ignored = readRepoFile('.dockerignore').split('\n');
    for (const entry of ['.git', 'node_modules', 'dist', 'svc-data']) expect(ignored).toContain(entry);
  });
});
