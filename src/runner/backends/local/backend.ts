import type { ChildProcess } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { forPipeline, type Logger } from '../../../logging/logger.js';
import type { ErrorBody } from '../../../model/errors.js';
import { bearerHeader, PIPELINE_TOKEN_KEY } from '../../../http/pipeline-token.js';
import type { Backend, Deployment, PipelineContext, ProvisionResult, Readiness } from '../../backend.js';
import { getText } from '../../../http/http-get.js';
import { freeLoopbackPort } from './free-port.js';
import { LineFeed } from './log-follow.js';
import { EventGrouper } from './log-events.js';
import { lastLines, rotatedPath, type Tail, tailFile } from './log-tail.js';
import { isOurProcess, type ProcessState, readState, removeState, writeState } from './process-state.js';
import { defaultSvcCommand, spawnPipeline, type SvcCommand } from './spawn.js';
import { StartSlots } from './start-slots.js';
import { type Release, InitdbDumpGate } from './initdb-dump-gate.js';
import { shippedEngineDump } from '../../../pglite/shipped-dump.js';

// The local backend (the embedded default): each pipeline a child process, its storage a directory
// under the data dir. Everything needed to find a process again is on disk, so a runner restarted
// after a crash adopts its pipelines instead of starting second copies.

const KEEP_ALIVE_MS = 10_000;

/**
 * A pipeline's log is rotated at this size (one previous part kept as pipeline.log.1): at most
 * 20 MiB of log per pipeline however long it runs (a checkpoint every 5 s writes ~2.6 KiB a minute).
 */
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;

/** Lines of `svc pipeline` after which its /status answers something new. */
const ANNOUNCEMENTS = ['pipeline HTTP server listening', 'runtime status changed', 'pipeline initialization complete'];

export interface LocalBackendOptions {
  dataDir: string;
  log: Logger;
  command?: SvcCommand;
  /** Environment of every pipeline process before the pipeline's own `env` (e.g. SVC_LOG_JSON). */
  baseEnv: Record<string, string>;
  /** SIGTERM, then SIGKILL after this long. */
  stopGraceMs?: number;
  /** Size at which a pipeline's log is rotated (LOG_ROTATE_BYTES). */
  logRotateBytes?: number;
}

interface Live {
  state: ProcessState;
  name: string;
  child?: ChildProcess;
  exit?: { code: number | null; signal: string | null };
  tail?: Tail;
  /** Joins the tail's lines into log events for the relay. */
  events?: EventGrouper;
  feed: LineFeed;
  /** Frees this start's place among the pipelines starting at once (StartSlots). */
  started?: () => void;
  killTimer?: NodeJS.Timeout;
  /** When the driver last asked about this Provisioned process (it asks /status right after). */
  checkedAt?: number;
}

export class LocalBackend implements Backend {
  readonly name = 'local';
  private readonly live = new Map<string, Live>();
  private readonly listeners: Array<(id: string) => void> = [];
  private readonly command: SvcCommand;
  private readonly gates = new Map<string, InitdbDumpGate>();
  private readonly slots = new StartSlots(undefined, (id) => this.changed(id));

  private readonly keepAlive: NodeJS.Timeout;

  constructor(private readonly opts: LocalBackendOptions) {
    this.command = opts.command ?? defaultSvcCommand();
    // The processes' orphan watchdog counts /status calls. The driver's own calls stop while the
    // database is away; these keep the pipelines alive for as long as this runner lives.
    this.keepAlive = setInterval(() => void this.ping(), KEEP_ALIVE_MS);
    this.keepAlive.unref();
  }

  private async ping(): Promise<void> {
    await Promise.all(
      [...this.live.values()]
        // The driver's own health checks count too: only the processes it has not asked lately.
        .filter((e) => !e.exit && Date.now() - (e.checkedAt ?? 0) >= KEEP_ALIVE_MS)
        .map((e) => getText(`http://127.0.0.1:${e.state.port}/status`, 2_000, this.auth(e)).catch(() => undefined)),
    );
  }

  /** The token header of the process (kept in its 0600 state file, so an adopted process has it too). */
  private auth(e: Live): { headers: Record<string, string> } {
    return { headers: e.state.token ? bearerHeader(e.state.token) : {} };
  }

  private dir(id: string): string {
    return join(this.opts.dataDir, 'pipelines', id);
  }
  storagePath(id: string): string {
    return join(this.dir(id), 'storage');
  }
  private logFile(id: string): string {
    return join(this.dir(id), 'pipeline.log');
  }

  onChange(listener: (id: string) => void): void {
    this.listeners.push(listener);
  }
  private changed(id: string): void {
    for (const l of this.listeners) l(id);
  }

  admit(id: string): boolean {
    return this.slots.reserve(id);
  }

  async provision(d: Deployment): Promise<ProvisionResult> {
    const known = await this.find(d.pipelineId);
    if (known?.state.deployment_id === d.deploymentId && !known.exit) return { kind: 'started' };
    const dir = this.dir(d.pipelineId);
    await mkdir(this.storagePath(d.pipelineId), { recursive: true, mode: 0o700 });
    // Owner-only: the config may hold connector credentials, the token opens the pipeline's HTTP.
    await chmod(dir, 0o700);
    const configFile = join(dir, 'deployment.json');
    await writeOwnerOnly(configFile, JSON.stringify(d.config, null, 2));
    const tokenFile = join(dir, PIPELINE_TOKEN_KEY);
    await writeOwnerOnly(tokenFile, d.token);
    const userEnv = d.runtime.env ?? {};
    // The engine's initdb dump that the build shipped (src/pglite/shipped-dump.ts); without one (a
    // build from src/), one for every pipeline of this data dir, keyed by the platform version,
    // written by the first start. "engine": the slim kind (src/pglite/initdb-dump.ts).
    const initdbDump =
      shippedEngineDump() ?? join(this.opts.dataDir, 'cache', `engine-${d.config.platform_version}.tar`);
    const started = await this.slots.claim(d.pipelineId);
    let release: Release | undefined;
    let child: ChildProcess | undefined;
    let port: number;
    try {
      release = await this.gate(initdbDump).admit();
      port = await freeLoopbackPort();
      child = await spawnPipeline({
        command: this.command,
        configFile,
        tokenFile,
        port,
        initial: d.initial,
        deploymentId: d.deploymentId,
        env: { ...this.opts.baseEnv, ...userEnv },
        logFile: this.logFile(d.pipelineId),
        initdbDump,
        compileCache: join(this.opts.dataDir, 'cache', 'node-compile'),
      });
    } catch (error) {
      // Nothing started: the place among the starting pipelines is free at once, not after 30 s.
      started();
      throw error;
    } finally {
      const running = child;
      release?.(running ? new Promise((resolve) => running.once('exit', resolve)) : Promise.resolve());
    }
    const state: ProcessState = {
      pid: child.pid ?? -1,
      port,
      deployment_id: d.deploymentId,
      token: d.token,
      started_at: new Date().toISOString(),
    };
    await writeState(dir, state);
    this.track(d.pipelineId, d.pipelineName, state, child).started = started;
    return { kind: 'started' };
  }

  private gate(dump: string): InitdbDumpGate {
    let gate = this.gates.get(dump);
    if (!gate) this.gates.set(dump, (gate = new InitdbDumpGate(dump)));
    return gate;
  }

  private track(id: string, name: string, state: ProcessState, child?: ChildProcess): Live {
    const entry: Live = { state, name, child, feed: new LineFeed() };
    this.live.set(id, entry);
    const log = forPipeline(this.opts.log, { name, id });
    // Rule 5 of seed 6.3: the runner relays the pipeline's log events under fields.line.
    const events = new EventGrouper({ onEvent: (line) => log.info({ line }) });
    entry.events = events;
    entry.tail = tailFile(
      this.logFile(id),
      (line) => {
        events.push(line);
        entry.feed.publish(line);
        // The process announces what the runner waits for: look at once instead of at the next poll.
        if (line.includes('pipeline initialization complete')) entry.started?.();
        if (ANNOUNCEMENTS.some((a) => line.includes(a))) this.changed(id);
      },
      { rotateAtBytes: this.opts.logRotateBytes ?? LOG_ROTATE_BYTES },
    );
    child?.once('exit', (code, signal) => {
      entry.exit = { code, signal };
      entry.started?.();
      this.changed(id);
    });
    return entry;
  }

  /** The process of a pipeline: known to this runner, or adopted from its state file. */
  private async find(id: string): Promise<Live | undefined> {
    const known = this.live.get(id);
    if (known) return known;
    const state = await readState(this.dir(id));
    if (!state) return undefined;
    if (!isOurProcess(state)) {
      await removeState(this.dir(id));
      return undefined;
    }
    this.opts.log.info({ pipeline_id: id, pid: state.pid }, 'adopted a running pipeline process');
    return this.track(id, id, state);
  }

  async readiness(id: string, deploymentId: string, context?: PipelineContext): Promise<Readiness> {
    const entry = await this.find(id);
    if (!entry || entry.state.deployment_id !== deploymentId)
      return { kind: 'fatal', error: await this.gone(id, entry) };
    if (entry.exit || (!entry.child && !isOurProcess(entry.state)))
      return { kind: 'fatal', error: await this.gone(id, entry) };
    const location = `http://127.0.0.1:${entry.state.port}`;
    // Once Provisioned, the runner asks /status itself right after this: a second request here
    // would only double the cost of every health check.
    if (context?.phase === 'provisioned') {
      entry.checkedAt = Date.now();
      return { kind: 'ready', location };
    }
    try {
      await getText(`${location}/status`, 1_000, this.auth(entry));
      return { kind: 'ready', location };
    } catch {
      return { kind: 'not-ready' };
    }
  }

  private async gone(id: string, entry: Live | undefined): Promise<ErrorBody> {
    // Right after a rotation the file holds little: the last lines may be in the kept part.
    const file = this.logFile(id);
    const stderr = [...(await lastLines(rotatedPath(file), 20)), ...(await lastLines(file, 20))].slice(-20);
    const exit = entry?.exit;
    return {
      error_code: 'PipelineProcessError',
      message: exit
        ? `The pipeline process exited (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`
        : 'The pipeline process is not running',
      details: { exit_code: exit?.code ?? null, signal: exit?.signal ?? null, last_lines: stderr },
    };
  }

  async stop(id: string): Promise<boolean> {
    const entry = await this.find(id);
    if (!entry) return true;
    const alive = !entry.exit && isOurProcess(entry.state);
    if (!alive) {
      if (entry.killTimer) clearTimeout(entry.killTimer);
      await entry.tail?.stop();
      entry.events?.flush();
      // After the tail's last read: followers get every line the process wrote, then the end.
      entry.feed.end();
      this.live.delete(id);
      await removeState(this.dir(id));
      return true;
    }
    if (!entry.killTimer) {
      signalGroup(entry.state.pid, 'SIGTERM');
      entry.killTimer = setTimeout(() => {
        signalGroup(entry.state.pid, 'SIGKILL');
        this.changed(id);
      }, this.opts.stopGraceMs ?? 10_000);
      // Exits of adopted processes are not reported by 'exit': look again shortly.
      if (!entry.child) setTimeout(() => this.changed(id), 250);
    }
    return false;
  }

  async clear(id: string): Promise<boolean> {
    if (!(await this.stop(id))) return false;
    await rm(this.dir(id), { recursive: true, force: true });
    return true;
  }

  /**
   * The pipeline's output: the last 1,000 lines, then (`follow`) each new one until its process has
   * stopped or `signal` aborts. A pipeline not running here gives what its log file holds; undefined
   * if it never ran here.
   */
  async followLogs(
    id: string,
    signal: AbortSignal,
    follow = true,
  ): Promise<AsyncIterable<string> | Iterable<string> | undefined> {
    const entry = this.live.get(id);
    const backlog = (end?: number) => lastLines(this.logFile(id), 1_000, 1024 * 1024, end);
    if (entry && !follow) return backlog(entry.tail?.offset);
    if (entry) {
      const tail = entry.tail;
      return entry.feed.follow(() => backlog(tail?.offset), signal);
    }
    const lines = await backlog();
    return lines.length > 0 ? lines : undefined;
  }

  /** Stops every pipeline process this runner knows (manager shutdown). */
  async close(): Promise<void> {
    clearInterval(this.keepAlive);
    const ids = [...this.live.keys()];
    const deadline = Date.now() + (this.opts.stopGraceMs ?? 10_000) + 2_000;
    while (Date.now() < deadline) {
      const done = await Promise.all(ids.map((id) => this.stop(id)));
      if (done.every(Boolean)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Written with mode 0600 from the start (and again if the file existed: writeFile keeps old modes). */
async function writeOwnerOnly(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600 });
  await chmod(file, 0o600);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}
