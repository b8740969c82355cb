import { execFileSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LABEL_KIND, LABEL_PID } from '../support/containers/container.js';
import { MISSING_DOCKER, testDocker } from '../support/containers/docker.js';
import { startKafka, type TestKafka } from '../support/kafka.js';
import { createTopics, produce, readTopic } from '../support/kafka-client.js';

// The servers of the connectors' tests are containers, not processes of this machine: the broker
// startKafka gives is a running container of the svc-local/kafka image in the test Docker (labelled
// for the orphan clean-up), its client port published on loopback only; stopped, the container has
// exited and the broker is gone; started again, the same container serves the same data on the same
// port. The project's PostgreSQL is such a container too.

const docker = (args: string[]) => execFileSync('docker', args, { encoding: 'utf8', env: process.env }).trim();
const inspect = (id: string, format: string) => docker(['inspect', '--format', format, id]);

/** Whether a TCP connection to the loopback port is accepted (docker-proxy listens only while the container runs). */
const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

let kafka: TestKafka;
beforeAll(async () => {
  kafka = await startKafka();
});
afterAll(async () => {
  await kafka?.destroy();
});

describe('test containers', () => {
  it('Kafka runs in a container of the local image, published on loopback, and keeps its data across stop/start', async () => {
    const port = new URL(`kafka://${kafka.bootstrap}`).port;
    expect(inspect(kafka.containerId, '{{.Config.Image}}')).toBe(testDocker().kafkaImage);
    expect(inspect(kafka.containerId, '{{.State.Status}}')).toBe('running');
    expect(inspect(kafka.containerId, `{{index .Config.Labels "${LABEL_KIND}"}}`)).toBe('kafka');
    expect(inspect(kafka.containerId, `{{index .Config.Labels "${LABEL_PID}"}}`)).toBe(String(process.pid));
    expect(docker(['port', kafka.containerId, '9092/tcp'])).toBe(`127.0.0.1:${port}`);
    await createTopics(kafka.bootstrap, ['probe']);
    await produce(kafka.bootstrap, 'probe', ['one', 'two']);

    await kafka.stop();
    expect(inspect(kafka.containerId, '{{.State.Status}}')).toBe('exited');
    expect(await accepts(Number(port))).toBe(false);

    await kafka.start();
    expect(inspect(kafka.containerId, '{{.State.Status}}')).toBe('running');
    expect(docker(['port', kafka.containerId, '9092/tcp'])).toBe(`127.0.0.1:${port}`);
    expect(await accepts(Number(port))).toBe(true);
    expect(await readTopic(kafka.bootstrap, 'probe', 2)).toEqual(['one', 'two']);
  });

  it("a cluster id beginning with '-' (one random id in 64) formats and the broker serves", async () => {
    // The entrypoint once passed it as `-t <id>`, which the storage tool read as an option: the
    // format failed, the container exited before the broker started, and CI failed at random.
    const clusterId = '-' + 'A'.repeat(21);
    const dashed = await startKafka({ clusterId });
    try {
      const meta = docker(['exec', dashed.containerId, 'cat', '/var/lib/kafka/data/meta.properties']);
      expect(meta).toContain(`cluster.id=${clusterId}`);
      await createTopics(dashed.bootstrap, ['dashed']);
      await produce(dashed.bootstrap, 'dashed', ['served']);
      expect(await readTopic(dashed.bootstrap, 'dashed', 1)).toEqual(['served']);
    } finally {
      await dashed.destroy();
    }
  });

  it("the project's PostgreSQL is a running container of the local image", () => {
    const port = new URL(inject('postgresUrl')).port;
    const ids = docker(['ps', '-q', '--filter', `label=${LABEL_KIND}=postgres`]).split('\n');
    const published = ids.filter((id) => id && docker(['port', id, '5432/tcp']) === `127.0.0.1:${port}`);
    expect(published).toHaveLength(1);
    expect(inspect(published[0] ?? '', '{{.Config.Image}}')).toBe(testDocker().postgresImage);
  });

  it('no DOCKER_HOST and no dockerd: fails at once, naming the package (never skips)', () => {
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] };
    expect(() => testDocker(env, '/nonexistent/dockerd')).toThrow(MISSING_DOCKER);
    expect(MISSING_DOCKER).toContain('apt-get install docker.io');
  });
});
