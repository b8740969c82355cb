import type { TestProject } from 'vitest/node';
import { removeOrphanContainers } from './container.js';
import { testDocker } from './docker.js';
import { type ContainerPostgres, startPostgresContainer } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

/**
 * The connectors project's Docker, images and PostgreSQL: finds or starts the Docker daemon and
 * builds or loads the images once (progress on stderr; testDocker leaves the answer in the
 * environment the test workers inherit), removes the containers a crashed run left, and starts the
 * project's PostgreSQL as a container (each test file makes its own database in it). Docker missing
 * fails the run here, naming the package.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const docker = testDocker();
  const orphans = removeOrphanContainers();
  process.stderr.write(
    `connectors: Docker at ${docker.host}, images ${docker.kafkaImage} ${docker.postgresImage}` +
      `${orphans ? `, ${orphans} containers of a crashed run removed` : ''} (${Date.now() - started} ms)\n`,
  );
  const postgres: ContainerPostgres = await startPostgresContainer();
  project.provide('postgresUrl', postgres.url);
  return () => postgres.destroy();
}
