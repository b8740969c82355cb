import { defineConfig } from 'vitest/config';

/** The tests next to the code that start a PGlite (seconds each): the engine's, the dump's, the store's. */
const PGLITE_TESTS = [
  'src/engine/**/*.test.ts',
  'src/pglite/**/*.test.ts',
  'src/compiler/sql/**/*.test.ts',
  'src/store/pglite-*.test.ts',
  // Elsewhere, a test that needs an engine is named *.pglite.test.ts.
  'src/**/*.pglite.test.ts',
];

// Eight projects, each with only the real parts it needs:
// - unit: the tests next to the code in src/ and web/src/ that need nothing but the module (and a temp file);
// - pglite: the tests next to the code that start an in-memory PGlite (PGLITE_TESTS);
// - api: test/api and test/cli: the HTTP API against a real PostgreSQL (started by the global setup)
//   and embedded PGlite, and `svc` as a process (the global setup rebuilds dist/ when older than src/);
// - cluster: the real Kubernetes control plane of test/cluster (built once, cached outside the repo)
//   with its own tests there; svc's Kubernetes runner against it (test/kubernetes); and the Helm
//   chart's tests that need a cluster (test/chart/*.cluster.test.ts);
// - real-node: a cluster of its own with a real node joined (containerd + kubelet + kube-scheduler,
//   pods as containers from the image the Dockerfile builds; test/cluster/node, needs root);
// - connectors: the connectors (src/connectors) against real files, HTTP, and PostgreSQL and a Kafka broker
//   in containers (testcontainers, images built locally);
// - web: the web console (web/, served at / from dist/web) in Debian's Chromium against `svc manager`;
// - chart: the Helm chart rendered and linted by Helm (built from the Go module proxy, cached), no cluster.
// `npm test` (test/support/run-suites.ts) runs the projects with `fileParallelism: false` in a
// vitest process of their own, then `pglite`, beside the others. More files at once than vitest's default (cores
// - 1) did not help on 2 cores: three at a time beside the clusters kept the CPU at 100 % and the
// api project took as long as one at a time, while tests waiting on compiles timed out.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'web/src/**/*.test.ts', 'test/support/**/*.test.ts'],
          exclude: PGLITE_TESTS,
        },
      },
      {
        test: {
          name: 'pglite',
          include: PGLITE_TESTS,
        },
      },
      {
        test: {
          name: 'api',
          include: ['test/api/**/*.test.ts', 'test/cli/**/*.test.ts'],
          globalSetup: ['test/support/build-global-setup.ts', 'test/support/postgres-global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts', 'test/kubernetes/**/*.test.ts', 'test/chart/**/*.cluster.test.ts'],
          // The real node's tests are the real-node project's (a cluster of their own).
          exclude: ['test/cluster/node/**'],
          // The runner's tests also need the database the other components share.
          globalSetup: [
            'test/support/build-global-setup.ts',
            'test/cluster/global-setup.ts',
            'test/support/postgres-global-setup.ts',
          ],
          testTimeout: 180_000,
          hookTimeout: 600_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'real-node',
          include: ['test/cluster/node/**/*.test.ts'],
          // Its own cluster (state dir, agent pod subnet) beside the cluster project's, then node.sh up,
          // which builds or reuses the kubelet and the images (test/cluster/node/README.md).
          globalSetup: [
            'test/support/build-global-setup.ts',
            'test/cluster/node/global-setup.ts',
            'test/support/postgres-global-setup.ts',
          ],
          testTimeout: 300_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'connectors',
          include: ['test/connectors/**/*.test.ts'],
          // Docker (the user's DOCKER_HOST or the project's own dockerd) and the images built here;
          // PostgreSQL for postgres_input/postgres_output as a container; each Kafka test file starts
          // its own broker container (test/connectors/README.md); dist/ for the tests through
          // `svc manager` (manager-routes.test.ts).
          globalSetup: ['test/support/build-global-setup.ts', 'test/support/containers/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'web',
          include: ['test/web/**/*.test.ts'],
          // A real `svc manager` serving the console built into dist/web, driven by Debian's Chromium
          // through playwright-core (test/web/global-setup.ts checks both are there and current).
          globalSetup: ['test/support/build-global-setup.ts', 'test/web/global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 180_000,
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
