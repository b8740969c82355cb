// One container of a pod as a local process: started in its own process group (so its children
// stop with it), output appended to a log file, exits recorded as the kubelet reports them.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import type { V1Probe, V1Container } from '@kubernetes/client-node';
import { isAlive, terminate } from '../control-plane/processes.js';
import { cpuShares, niceForShares } from './cpu-weight.js';
import { ReadinessProber } from './probe.js';

export interface Termination {
  exitCode: number;
  signal?: string;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export interface Waiting {
  reason: string;
  message?: string;
}

export const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export interface StartSpec {
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  logFile: string;
  container: V1Container;
  readinessProbe: V1Probe | undefined;
  podIP: string;
}

export class ContainerRuntime {
  private proc: ChildProcess | undefined;
  pid: number | undefined;
  startedAt: string | undefined;
  lastTermination: Termination | undefined;
  waiting: Waiting | undefined;
  /** Earliest time (ms) the next start may happen: the crash-loop back-off. */
  restartAt = 0;
  private prober: ReadinessProber | undefined;

  constructor(
    readonly name: string,
    public restartCount: number,
    lastTermination: Termination | undefined,
    private readonly onChange: () => void,
  ) {
    this.lastTermination = lastTermination;
  }

  get running(): boolean {
    return this.proc !== undefined;
  }

  get everStarted(): boolean {
    return this.running || this.lastTermination !== undefined;
  }

  get ready(): boolean {
    return this.running && (this.prober ? this.prober.ready : true);
  }

  get containerID(): string {
    return `svc-agent://${this.pid ?? 0}`;
  }

  start(spec: StartSpec): void {
    const [command, ...args] = spec.argv;
    if (command === undefined) throw new Error(`container ${this.name} has no command`);
    const out = openSync(spec.logFile, 'a');
    const child = spawn(command, args, { cwd: spec.cwd, env: spec.env, detached: true, stdio: ['ignore', out, out] });
    closeSync(out);
    // The container's CPU weight (cpu-weight.ts); a process that is already gone is reported by 'exit'.
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, niceForShares(cpuShares(spec.container)));
      } catch {
        // exited already
      }
    }
    const startedAt = now();
    this.proc = child;
    this.pid = child.pid;
    this.startedAt = startedAt;
    this.waiting = undefined;
    const containerID = this.containerID;
    let finished = false;
    const finish = (exitCode: number, signal: NodeJS.Signals | null, message?: string) => {
      if (finished) return;
      finished = true;
      this.proc = undefined;
      this.prober?.stop();
      this.prober = undefined;
      this.lastTermination = {
        exitCode,
        ...(signal ? { signal } : {}),
        reason: message !== undefined ? 'StartError' : exitCode === 0 ? 'Completed' : 'Error',
        ...(message !== undefined ? { message } : {}),
        startedAt,
        finishedAt: now(),
        containerID,
      };
      this.onChange();
    };
    child.on('exit', (code, signal) => finish(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0), signal));
    child.on('error', (err) => finish(128, null, err.message));
    if (spec.readinessProbe) {
      this.prober = new ReadinessProber(spec.readinessProbe, spec.container, spec.podIP, this.onChange);
    }
  }

  /** Stops the process group: SIGTERM, SIGKILL after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.prober?.stop();
    const pid = this.pid;
    if (this.proc && pid !== undefined && isAlive(pid)) await terminate([pid], graceMs);
  }
}
