import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The real node's tests (issue 18), apart from `npm test` until they have proven reliable in CI:
//   npx vitest run --config test/cluster/node/vitest.config.ts
// Needs root (containerd, the kubelet, a bridge) and builds the images on first use (see README.md).
export default defineConfig({
  test: {
    name: 'real-node',
    root: fileURLToPath(new URL('../../..', import.meta.url)),
    include: ['test/cluster/node/**/*.test.ts'],
    globalSetup: [
      'test/support/build-global-setup.ts',
      'test/cluster/node/global-setup.ts',
      'test/support/postgres-global-setup.ts',
    ],
    testTimeout: 300_000,
    hookTimeout: 900_000,
    fileParallelism: false,
  },
});
