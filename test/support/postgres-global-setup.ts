import type { TestProject } from 'vitest/node';
import { startPostgres, stopPostgres, type TestPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * The real PostgreSQL of the api suite: the one named by SVC_TEST_DATABASE_URL (`.ci/run` starts
 * it), or a throw-away server started here. Each test file then makes its own database in it.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env['SVC_TEST_DATABASE_URL'];
  let started: TestPostgres | undefined;
  if (!given) started = await startPostgres();
  project.provide('postgresUrl', given ?? started?.url ?? '');
  return () => {
    if (started) stopPostgres(started);
  };
}
