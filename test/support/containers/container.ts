import { execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { GenericContainer, getContainerRuntimeClient, type StartedTestContainer, Wait } from 'testcontainers';
import { freeLoopbackPort } from '../../../src/runner/backends/local/free-port.js';
import { isAlive } from '../../../src/store/data-dir-lock.js';
import { testDocker } from './docker.js';

// The one way the tests start a container (Kafka, PostgreSQL): testcontainers' GenericContainer from
// an image built here (never pulled), each of its ports published on a loopback port picked free
// (picked again if taken before the start) and kept for the container's life, so `stop` and
// `start` again bring the same server back at the same address with its data (the container's own
// filesystem). Every container is labelled with its kind and the pid of the process that started
// it: removeOrphanContainers ends those whose process is gone (Ryuk, testcontainers' own reaper, is
// off: its image cannot be pulled here).

export const LABEL_KIND = 'svc.test.container';
export const LABEL_PID = 'svc.test.pid';

export interface ContainerSpec {
  /** What it is (the label's value): `kafka`, `postgres`. */
  kind: string;
  image: string;
  /** The container's ports; each gets a free host port (the same across stop/start). */
  ports: number[];
  /** Its environment, knowing the host ports (e.g. an advertised address). */
  env: (hostPorts: ReadonlyMap<number, number>) => Record<string, string>;
  command?: string[];
  /** A log line that says it serves (looked for in the logs since each start). */
  ready: RegExp;
  startupMs: number;
  /** How long `stop` waits after SIGTERM before SIGKILL. */
  stopGraceMs: number;
}

/** A server in a container, as the tests hold it. */
export interface ContainerServer {
  containerId: string;
  /** Stops it (SIGTERM, then SIGKILL after the grace), keeping its data and ports. */
  stop(): Promise<void>;
  /** Starts the stopped container again and waits until it serves. */
  start(): Promise<void>;
  /** Stops and removes it with its data. */
  destroy(): Promise<void>;
}

export interface TestContainer extends ContainerServer {
  /** The host (loopback) port of a container port. */
  hostPort(containerPort: number): number;
}

/** How many of a container's last log lines a failed start names. */
const TAIL_LINES = 40;

/**
 * A container of the spec with these host ports, started and serving. testcontainers removes a
 * container that never became ready, its logs with it, so the last lines are kept as they come and
 * a failed start names them (a broker that exited while starting says why).
 */
async function launch(spec: ContainerSpec, hostPorts: ReadonlyMap<number, number>): Promise<StartedTestContainer> {
  const tail: string[] = [];
  const keep = (stream: Readable) =>
    createInterface({ input: stream }).on('line', (line) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    });
  const container = new GenericContainer(spec.image)
    .withLogConsumer(keep)
    .withPullPolicy({ shouldPull: () => 'never' })
    .withLabels({ [LABEL_KIND]: spec.kind, [LABEL_PID]: String(process.pid) })
    .withEnvironment(spec.env(hostPorts))
    .withExposedPorts(...[...hostPorts].map(([container, host]) => ({ container, host })))
    .withWaitStrategy(Wait.forLogMessage(spec.ready))
    .withStartupTimeout(spec.startupMs);
  try {
    return await (spec.command ? container.withCommand(spec.command) : container).start();
  } catch (error) {
    const said = tail.length > 0 ? `; its last log lines:\n${tail.join('\n')}` : '; it logged nothing';
    throw new Error(`${spec.kind} container did not start: ${String(error)}${said}`, { cause: error });
  }
}

/** docker-proxy could not bind the port picked (taken between the pick and the start). */
const portTaken = (error: unknown) => /port is already allocated|address already in use/i.test(String(error));

export async function startContainer(spec: ContainerSpec): Promise<TestContainer> {
  testDocker();
  const hostPorts = new Map<number, number>();
  let started: StartedTestContainer | undefined;
  for (let attempt = 1; !started; attempt++) {
    for (const port of spec.ports) hostPorts.set(port, await freeLoopbackPort());
    try {
      started = await launch(spec, hostPorts);
    } catch (error) {
      if (attempt >= 3 || !portTaken(error)) throw error;
    }
  }
  const client = await getContainerRuntimeClient();
  const id = started.getId();
  const handle = () => client.container.getById(id);
  const serving = started;
  return {
    containerId: id,
    hostPort(port) {
      const host = hostPorts.get(port);
      if (host === undefined) throw new Error(`${spec.kind}: port ${port} is not published`);
      return host;
    },
    // Not started.stop(): testcontainers remembers a stopped container and would not stop it again
    // after a restart.
    stop: () => client.container.stop(handle(), { timeout: spec.stopGraceMs }),
    // docker restart of a stopped container starts it; testcontainers then waits for `ready` in the
    // logs since this start.
    start: () => serving.restart(),
    async destroy() {
      await client.container.stop(handle(), { timeout: 0 });
      await client.container.remove(handle(), { removeVolumes: true });
    },
  };
}

/**
 * Removes the test containers whose starting process is gone (a crashed or killed run); returns how
 * many. Through the docker CLI (images.sh needs it anyway), with the DOCKER_HOST of testDocker.
 */
export function removeOrphanContainers(env: NodeJS.ProcessEnv = process.env): number {
  const docker = (args: string[]) => execFileSync('docker', args, { encoding: 'utf8', env });
  const lines = docker([
    'ps',
    '-a',
    '--filter',
    `label=${LABEL_KIND}`,
    '--format',
    `{{.ID}} {{.Label "${LABEL_PID}"}}`,
  ]);
  const orphans = lines
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(([id, pid]) => id && !(pid && isAlive(Number(pid))))
    .map(([id]) => id ?? '');
  if (orphans.length > 0) docker(['rm', '-f', '-v', ...orphans]);
  return orphans.length;
}
