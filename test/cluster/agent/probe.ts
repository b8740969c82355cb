// Readiness probing of one running container, with the kubelet's timing fields. httpGet (HTTP or HTTPS) and
// tcpSocket are probed against the pod's loopback address; exec and grpc probes are not supported
// here and count as success, so such a pod still becomes Ready.
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { V1Container, V1Probe } from '@kubernetes/client-node';

function resolvePort(container: V1Container, port: number | string | undefined): number {
  if (typeof port === 'number') return port;
  if (port !== undefined && /^\d+$/.test(port)) return Number(port);
  const named = container.ports?.find((p) => p.name === port);
  if (!named) throw new Error(`port ${String(port)} is not defined on container ${container.name}`);
  return named.containerPort;
}

function probeOnce(probe: V1Probe, container: V1Container, podIP: string): Promise<boolean> {
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1000;
  return new Promise((resolve) => {
    try {
      if (probe.httpGet) {
        const get = probe.httpGet;
        const headers = Object.fromEntries((get.httpHeaders ?? []).map((h) => [h.name, h.value]));
        // As the kubelet: scheme HTTPS does not verify the certificate.
        const send = get.scheme === 'HTTPS' ? httpsRequest : request;
        const req = send(
          {
            host: get.host ?? podIP,
            port: resolvePort(container, get.port),
            path: get.path ?? '/',
            headers,
            rejectUnauthorized: false,
          },
          (res) => {
            res.resume();
            const code = res.statusCode ?? 0;
            resolve(code >= 200 && code < 400);
          },
        );
        req.setTimeout(timeoutMs, () => req.destroy());
        req.on('error', () => resolve(false));
        req.end();
      } else if (probe.tcpSocket) {
        const socket = connect({
          host: probe.tcpSocket.host ?? podIP,
          port: resolvePort(container, probe.tcpSocket.port),
        });
        socket.setTimeout(timeoutMs, () => socket.destroy());
        socket.on('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
        socket.on('close', () => resolve(false));
      } else {
        resolve(true);
      }
    } catch {
      resolve(false);
    }
  });
}

/** Probes periodically and calls `onChange` whenever readiness flips. */
export class ReadinessProber {
  ready = false;
  private timer: NodeJS.Timeout | undefined;
  private successes = 0;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly probe: V1Probe,
    private readonly container: V1Container,
    private readonly podIP: string,
    private readonly onChange: () => void,
  ) {
    this.schedule((probe.initialDelaySeconds ?? 0) * 1000);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  private async tick(): Promise<void> {
    const ok = await probeOnce(this.probe, this.container, this.podIP);
    if (this.stopped) return;
    if (ok) {
      this.failures = 0;
      this.successes += 1;
      if (!this.ready && this.successes >= (this.probe.successThreshold ?? 1)) this.set(true);
    } else {
      this.successes = 0;
      this.failures += 1;
      if (this.ready && this.failures >= (this.probe.failureThreshold ?? 3)) this.set(false);
    }
    this.schedule((this.probe.periodSeconds ?? 10) * 1000);
  }

  private set(ready: boolean): void {
    this.ready = ready;
    this.onChange();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
