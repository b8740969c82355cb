import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scriptValues } from '../script-values.js';

// How the connectors' tests find Docker and their images (test/connectors/README.md). One answer per run: the
// vitest global setup (global-setup.ts) works it out once, with progress on stderr, and leaves it in
// the environment its test workers inherit; a process outside vitest (bench/connectors.ts) works it
// out itself, the same way.
//   Docker: DOCKER_HOST if the user set one (a contributor's Docker), else the project's own dockerd
//           (dockerd.sh: started once, then reused).
//   Images: svc-local/kafka and svc-local/postgres, built by test/cluster/node/images.sh --connectors
//           (cached by a hash of their inputs) and loaded into that Docker when it lacks them.

export interface TestDocker {
  /** The DOCKER_HOST testcontainers talks to. */
  host: string;
  kafkaImage: string;
  postgresImage: string;
}

const HERE = fileURLToPath(new URL('.', import.meta.url));
const IMAGES = fileURLToPath(new URL('../../cluster/node/images.sh', import.meta.url));
const DOCKERD = `${HERE}dockerd.sh`;

/** Names what provides Docker when neither a DOCKER_HOST nor Debian's dockerd is there. */
export const MISSING_DOCKER =
  'the connectors tests need Docker: install the apt package docker.io (apt-get install docker.io; .ci/run does), ' +
  'or set DOCKER_HOST to a Docker engine of yours';

/**
 * The Docker and the images of this run, from the environment when the global setup already set
 * them, else by starting the project's dockerd (unless DOCKER_HOST names one) and building/loading
 * the images. Also sets, for testcontainers in this process and the workers it starts, DOCKER_HOST
 * and TESTCONTAINERS_RYUK_DISABLED (Ryuk's image cannot be pulled here; teardown and
 * removeOrphanContainers remove the containers instead). No DOCKER_HOST and no `dockerd` (Debian's
 * path) throws MISSING_DOCKER at once, naming the package.
 */
export function testDocker(env: NodeJS.ProcessEnv = process.env, dockerd = '/usr/sbin/dockerd'): TestDocker {
  env['TESTCONTAINERS_RYUK_DISABLED'] = 'true';
  const given = env['DOCKER_HOST'];
  const kafka = env['SVC_TEST_KAFKA_IMAGE'];
  const postgres = env['SVC_TEST_POSTGRES_IMAGE'];
  if (given && kafka && postgres) return { host: given, kafkaImage: kafka, postgresImage: postgres };
  if (!given && !existsSync(dockerd)) throw new Error(MISSING_DOCKER);
  const host = given ?? scriptValues(DOCKERD, [], env)['DOCKER_HOST'];
  if (!host) throw new Error(`${DOCKERD} printed no DOCKER_HOST`);
  env['DOCKER_HOST'] = host;
  const images = scriptValues(IMAGES, ['--connectors'], env);
  const kafkaImage = images['KAFKA_IMAGE'];
  const postgresImage = images['POSTGRES_IMAGE'];
  if (!kafkaImage || !postgresImage) throw new Error(`${IMAGES} --connectors printed no KAFKA_IMAGE/POSTGRES_IMAGE`);
  env['SVC_TEST_KAFKA_IMAGE'] = kafkaImage;
  env['SVC_TEST_POSTGRES_IMAGE'] = postgresImage;
  return { host, kafkaImage, postgresImage };
}
