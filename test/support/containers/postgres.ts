import { type ContainerServer, type TestContainer, startContainer } from './container.js';
import { testDocker } from './docker.js';

// A PostgreSQL 15 server for the connectors' tests: a container of svc-local/postgres (Debian's
// postgresql-15 with an entrypoint that does what the official image's does for PGDATA,
// POSTGRES_USER, POSTGRES_PASSWORD and POSTGRES_DB; built by test/cluster/node/images.sh), started
// by container.ts like the Kafka broker. Password logins (scram-sha-256) as user postgres; `stop`
// and `start` keep its data and port, as a database that goes away and comes back.

/** `stop` kills the server after 1 s (it waits for its clients otherwise), as a crash would. */
export interface ContainerPostgres extends ContainerServer {
  /** postgres://postgres:<password>@127.0.0.1:<port>/postgres */
  url: string;
}

const PORT = 5432;
const PASSWORD = 'svc-test-pg-secret';

export async function startPostgresContainer(): Promise<ContainerPostgres> {
  const container: TestContainer = await startContainer({
    kind: 'postgres',
    image: testDocker().postgresImage,
    ports: [PORT],
    env: () => ({ PGDATA: '/var/lib/postgresql/data', POSTGRES_PASSWORD: PASSWORD }),
    // Extra server settings, passed on by the entrypoint: many test databases and connections at once.
    command: ['-c', 'max_connections=300', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    ready: /database system is ready to accept connections/,
    startupMs: 60_000,
    stopGraceMs: 1_000,
  });
  return { ...container, url: `postgres://postgres:${PASSWORD}@127.0.0.1:${container.hostPort(PORT)}/postgres` };
}
