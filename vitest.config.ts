import { defineConfig } from 'vitest/config';

// Three suites, each with only the real parts it needs:
// - unit: pure modules (model, lifecycle, logging), next to their code;
// - api: the HTTP API against a real PostgreSQL (started by the global setup) and embedded PGlite;
// - cluster: the real Kubernetes control plane of test/cluster (built once, cached outside the repo);
//   also runs the Helm chart's tests that need a cluster (test/chart/*.cluster.test.ts);
// - connectors: the connectors (src/connectors) against real files, HTTP, PostgreSQL and a Kafka broker;
// - chart: the Helm chart rendered and linted by Helm (built from the Go module proxy, cached), no cluster.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'api',
          include: ['test/api/**/*.test.ts', 'test/cli/**/*.test.ts'],
          globalSetup: ['test/support/postgres-global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts', 'test/chart/**/*.cluster.test.ts'],
          // The runner's tests also need the database the other components share.
          globalSetup: ['test/cluster/global-setup.ts', 'test/support/postgres-global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'connectors',
          include: ['test/connectors/**/*.test.ts'],
          // PostgreSQL for postgres_input/postgres_output; each Kafka test file starts its own broker.
          globalSetup: ['test/support/postgres-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'chart',
          include: ['test/chart/**/*.test.ts'],
          exclude: ['test/chart/**/*.cluster.test.ts'],
          globalSetup: ['test/chart/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
