import { z } from 'zod';
import { KUBERNETES_OPTIONS, KubernetesConfigSchema } from './config/kubernetes-options.js';
import { flagBool, type OptionSpec } from './config/option-spec.js';
import type { PipelineBounds } from './model/pipeline-pod.js';
import { BootstrapPolicy } from './model/status.js';

// The one place that reads the environment. Each option is a flag `--x-y` and an environment
// variable `SVC_X_Y`; a flag wins over the variable, the variable over the default. The result is
// validated once and frozen: nothing else in svc reads `process.env`.

export type { OptionSpec } from './config/option-spec.js';
export type { KubernetesConfig } from './config/kubernetes-options.js';

export const envName = (flag: string): string => `SVC_${flag.replace(/-/g, '_').toUpperCase()}`;

const truthy = (v: string | undefined): boolean => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { flag: 'port', value: 'port', default: '8080', description: 'TCP port of the HTTP API (0 picks a free one)' },
  { flag: 'bind-address', value: 'address', default: '127.0.0.1', description: 'address the HTTP API listens on' },
  {
    flag: 'data-dir',
    value: 'dir',
    default: './svc-data',
    description: 'directory for the embedded database and pipeline storage',
  },
  {
    flag: 'database-url',
    value: 'url',
    description: 'PostgreSQL URL (postgres://…); without it an embedded PGlite database under the data dir is used',
  },
  { flag: 'api-key', value: 'key', description: 'require "Authorization: Bearer <key>" on /v0 requests' },
  { flag: 'log-level', value: 'level', default: 'info', description: 'trace, debug, info, warn or error' },
  {
    flag: 'unstable-features',
    value: 'list',
    default: '',
    description: 'comma-separated unstable features to enable (runtime_version)',
  },
];

/** An http(s) URL other services' paths are joined onto: a trailing slash is dropped here, once. */
const serviceUrl = z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, ''));

const CommonConfigSchema = z.object({
  port: z.coerce.number().int().min(0).max(65_535),
  bindAddress: z.string().min(1),
  dataDir: z.string().min(1),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  apiKey: z.string().min(1).optional(),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error']),
  logJson: z.boolean(),
  unstableFeatures: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((f) => f.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(['runtime_version']))),
});
/** The options every control-plane command takes. */
export type CommonConfig = Readonly<z.infer<typeof CommonConfigSchema> & { childEnv: Record<string, string> }>;
/** `svc compiler-server` takes the common options alone. */
export type CompilerServerConfig = CommonConfig;

/** What a pipeline process inherits from the manager's environment: the basics, and JSON logs. */
const INHERITED = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SVC_LOG_JSON'];
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(INHERITED.flatMap((k) => (env[k] === undefined ? [] : [[k, env[k] as string]])));
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const camel = (flag: string): string => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Merges flags (as commander parsed them), environment and defaults into a validated config. */
export function loadCompilerServerConfig(
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): CompilerServerConfig {
  return Object.freeze({
    ...loadWith(COMMON_OPTIONS, CommonConfigSchema, flags, env),
    childEnv: childEnvironment(env),
  });
}

// The operator's bounds on what a start may ask for (chart values pipeline.memoryMb, storageMb,
// storageClasses): the API refuses a start outside them.
const BOUNDS_OPTIONS: readonly OptionSpec[] = [
  { flag: 'pipeline-memory-mb-min', value: 'MB', description: 'smallest resources.memory_mb_min/max a start may ask' },
  { flag: 'pipeline-memory-mb-max', value: 'MB', description: 'largest resources.memory_mb_min/max a start may ask' },
  { flag: 'pipeline-storage-mb-max', value: 'MB', description: 'largest resources.storage_mb_max a start may ask' },
  {
    flag: 'pipeline-storage-classes',
    value: 'list',
    default: '',
    description: 'comma-separated storage classes resources.storage_class may name (empty: any)',
  },
  {
    flag: 'pipeline-namespaces',
    value: 'list',
    default: '',
    description:
      'comma-separated namespaces resources.namespace may name (empty: any); the chart lists those the runner has a Role in',
  },
  {
    flag: 'pipeline-service-accounts',
    value: 'list',
    description:
      'comma-separated service accounts resources.service_account_name may name ("none": no account may be named; unset: any); the chart sets its pipeline account',
  },
  {
    flag: 'pipeline-init-container-images',
    value: 'list',
    description:
      'comma-separated images runtime_config.init_containers may use ("none": no init containers; unset: any); the chart sets "none" unless pipeline.initContainerImages lists some',
  },
];

const megabytes = z.coerce.number().int().min(1).optional();
const commaList = z.string().transform((v) =>
  v
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean),
);
/** An allowlist: unset allows anything, "none" nothing (an empty variable reads as unset). */
const allowlist = commaList.optional().transform((v) => (v === undefined ? undefined : v.filter((x) => x !== 'none')));
const BoundsSchema = z.object({
  pipelineMemoryMbMin: megabytes,
  pipelineMemoryMbMax: megabytes,
  pipelineStorageMbMax: megabytes,
  pipelineStorageClasses: commaList,
  pipelineNamespaces: commaList,
  pipelineServiceAccounts: allowlist,
  pipelineInitContainerImages: allowlist,
});

// HTTPS for the API (chart value https.secretRef mounts a kubernetes.io/tls Secret): both or neither.
const TLS_OPTIONS: readonly OptionSpec[] = [
  { flag: 'tls-cert', value: 'file', description: 'PEM certificate (chain) of the HTTP API: it then serves HTTPS' },
  { flag: 'tls-key', value: 'file', description: 'PEM private key of --tls-cert' },
];
const TlsSchema = z.object({ tlsCert: z.string().min(1).optional(), tlsKey: z.string().min(1).optional() });
const tlsBothOrNeither = (c: z.infer<typeof TlsSchema>, ctx: z.RefinementCtx) => {
  if ((c.tlsCert === undefined) !== (c.tlsKey === undefined)) {
    const missing = c.tlsCert === undefined ? 'tlsCert' : 'tlsKey';
    ctx.addIssue({ code: 'custom', path: [missing], message: 'is required with --tls-cert / --tls-key' });
  }
};

/** The bounds of a loaded config, as the API takes them. */
export function pipelineBounds(config: z.infer<typeof BoundsSchema>): PipelineBounds {
  return {
    ...(config.pipelineMemoryMbMin !== undefined && { memoryMbMin: config.pipelineMemoryMbMin }),
    ...(config.pipelineMemoryMbMax !== undefined && { memoryMbMax: config.pipelineMemoryMbMax }),
    ...(config.pipelineStorageMbMax !== undefined && { storageMbMax: config.pipelineStorageMbMax }),
    storageClasses: config.pipelineStorageClasses,
    ...(config.pipelineNamespaces.length > 0 && { namespaces: config.pipelineNamespaces }),
    ...(config.pipelineServiceAccounts && { serviceAccounts: config.pipelineServiceAccounts }),
    ...(config.pipelineInitContainerImages && { initContainerImages: config.pipelineInitContainerImages }),
  };
}

// `svc api-server`: the API alone. The runner's URL lets it stream a pipeline's log (GET
// /v0/pipelines/{name}/logs), which only the runner that started the process holds.
export const API_SERVER_OPTIONS: readonly OptionSpec[] = [
  ...COMMON_OPTIONS,
  ...BOUNDS_OPTIONS,
  ...TLS_OPTIONS,
  {
    flag: 'runner-url',
    value: 'url',
    description:
      "base URL of the runner's HTTP server (svc runner logs it when ready; the chart sets it): GET /v0/pipelines/{name}/logs streams from there; without it /logs answers 503",
  },
];

const ApiServerConfigSchema = CommonConfigSchema.extend({
  runnerUrl: serviceUrl.optional(),
  ...BoundsSchema.shape,
  ...TlsSchema.shape,
}).superRefine(tlsBothOrNeither);
export type ApiServerConfig = Readonly<z.infer<typeof ApiServerConfigSchema> & { childEnv: Record<string, string> }>;

export function loadApiServerConfig(
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): ApiServerConfig {
  return Object.freeze({
    ...loadWith(API_SERVER_OPTIONS, ApiServerConfigSchema, flags, env),
    childEnv: childEnvironment(env),
  });
}

function loadWith<S extends z.ZodType>(
  options: readonly OptionSpec[],
  schema: S,
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv,
): Readonly<z.infer<S>> {
  const raw: Record<string, unknown> = { logJson: truthy(env['SVC_LOG_JSON']) };
  for (const spec of options) {
    const key = camel(spec.flag);
    const fromFlag = flags[key];
    const fromEnv = env[envName(spec.flag)];
    raw[key] = fromFlag ?? (fromEnv === '' ? undefined : fromEnv) ?? spec.default;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? '');
    const spec = options.find((s) => camel(s.flag) === key);
    const where = spec ? `--${spec.flag} (or ${envName(spec.flag)})` : key;
    throw new ConfigError(`invalid ${where}: ${issue?.message ?? 'invalid value'}`);
  }
  return Object.freeze(parsed.data) as Readonly<z.infer<S>>;
}

// `svc pipeline`: started by a runner (a child process, or a pod from the pipeline template).
export const PIPELINE_OPTIONS: readonly OptionSpec[] = [
  { flag: 'config-file', value: 'file', description: 'deployment config (JSON) written by the runner' },
  { flag: 'bind-address', value: 'address', default: '0.0.0.0', description: 'address of the HTTP API' },
  { flag: 'port', value: 'port', default: '8080', description: 'port of the HTTP API (0 picks a free one)' },
  { flag: 'initial', value: 'status', default: 'running', description: 'running, paused or standby' },
  { flag: 'deployment-id', value: 'uuid', description: 'the deployment this process belongs to' },
  // The pipeline template passes these as arguments (seed 2.6.3 placeholders); each overrides the
  // config file's member, so a path the node rewrites (a volume mount) is the one used.
  { flag: 'binary-ref', value: 'ref', description: 'program binary URL or file (overrides the config file)' },
  { flag: 'program-info-ref', value: 'ref', description: 'program info URL or file (overrides the config file)' },
  { flag: 'storage-path', value: 'dir', description: 'pipeline storage directory (overrides the config file)' },
  {
    flag: 'bootstrap-policy',
    value: 'policy',
    description: 'allow, reject or await_approval (overrides the config file)',
  },
  {
    flag: 'initdb-dump',
    value: 'file',
    description: 'an initdb dump (a PGlite tar) to start the engine from, written there when missing (faster start)',
  },
  {
    flag: 'orphan-timeout-secs',
    value: 'secs',
    default: '0',
    description: 'exit when no runner has asked for /status this long (0: never; the local runner sets it)',
  },
  {
    flag: 'checkpoint-on-exit',
    value: 'bool',
    default: 'false',
    description:
      'with fault tolerance, write a checkpoint on SIGTERM before exiting (the pipeline template sets it: a drain or an eviction then loses nothing acknowledged)',
  },
  {
    flag: 'auth-token-file',
    value: 'file',
    description:
      'require "Authorization: Bearer <token>" on every request, the token read from this file (the local runner writes it)',
  },
  {
    flag: 'auth-token',
    value: 'token',
    description: 'the same token itself; set SVC_AUTH_TOKEN (a Kubernetes Secret), not the flag, which shows in ps',
  },
  {
    flag: 'cpu-cores',
    value: 'n',
    description:
      "the cores this process may use, which bound the engine's threads (default: the machine's, as its CPU affinity allows; set it where that over-counts, such as a container with a CPU quota)",
  },
  { flag: 'log-level', value: 'level', default: 'info', description: 'trace, debug, info, warn or error' },
];

const PipelineConfigSchema = z.object({
  configFile: z.string().min(1, 'is required'),
  bindAddress: z.string().min(1),
  port: z.coerce.number().int().min(0).max(65_535),
  initial: z.enum(['running', 'paused', 'standby']),
  deploymentId: z.uuid().optional(),
  binaryRef: z.string().min(1).optional(),
  programInfoRef: z.string().min(1).optional(),
  storagePath: z.string().min(1).optional(),
  bootstrapPolicy: BootstrapPolicy.optional(),
  orphanTimeoutSecs: z.coerce.number().int().min(0),
  checkpointOnExit: flagBool,
  initdbDump: z.string().min(1).optional(),
  authTokenFile: z.string().min(1).optional(),
  authToken: z.string().min(16, 'must be at least 16 characters').optional(),
  cpuCores: z.coerce.number().int().min(1).optional(),
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error']),
  logJson: z.boolean(),
});
export type PipelineProcessConfig = Readonly<z.infer<typeof PipelineConfigSchema>>;

export function loadPipelineConfig(
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): PipelineProcessConfig {
  return loadWith(PIPELINE_OPTIONS, PipelineConfigSchema, flags, env);
}

// `svc runner`: the runner alone, against the shared database and a compiler-server.
export const RUNNER_OPTIONS: readonly OptionSpec[] = [
  {
    flag: 'backend',
    value: 'name',
    default: 'local',
    description: 'where pipelines run: local (child processes) or kubernetes (StatefulSets)',
  },
  {
    flag: 'compiler-url',
    value: 'url',
    description:
      "base URL of the compiler-server's artifact server (svc compiler-server prints it); pipelines fetch programs there",
  },
  {
    flag: 'port',
    value: 'port',
    default: '8081',
    description: "port of /healthz, /readyz, /metrics and the pipelines' log streams (api-server --runner-url)",
  },
  { flag: 'bind-address', value: 'address', default: '127.0.0.1', description: 'address of those endpoints' },
  ...COMMON_OPTIONS.filter((o) => ['data-dir', 'database-url', 'log-level'].includes(o.flag)),
  // The Pipeline resources' controller starts pipelines too: it checks the same bounds as the API's /start.
  ...BOUNDS_OPTIONS,
  ...KUBERNETES_OPTIONS,
];

const RunnerConfigSchema = z.object({
  backend: z.enum(['local', 'kubernetes']),
  compilerUrl: serviceUrl,
  port: CommonConfigSchema.shape.port,
  bindAddress: CommonConfigSchema.shape.bindAddress,
  dataDir: z.string().min(1),
  databaseUrl: CommonConfigSchema.shape.databaseUrl,
  logLevel: CommonConfigSchema.shape.logLevel,
  logJson: z.boolean(),
  ...BoundsSchema.shape,
  ...KubernetesConfigSchema.shape,
});
export type RunnerConfig = Readonly<z.infer<typeof RunnerConfigSchema> & { childEnv: Record<string, string> }>;

/** --kubeconfig, else SVC_KUBECONFIG, else the standard KUBECONFIG variable. */
function withKubeconfigFallback(flags: Readonly<Record<string, unknown>>, env: NodeJS.ProcessEnv) {
  return { ...flags, kubeconfig: flags['kubeconfig'] ?? (env['SVC_KUBECONFIG'] || env['KUBECONFIG'] || undefined) };
}

export function loadRunnerConfig(
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): RunnerConfig {
  return Object.freeze({
    ...loadWith(RUNNER_OPTIONS, RunnerConfigSchema, withKubeconfigFallback(flags, env), env),
    childEnv: childEnvironment(env),
  });
}

// `svc manager`: every component in one process. By default the runner is the local one; with
// `--runner kubernetes` (the chart's combined mode) pipelines run as StatefulSets, and their pods
// fetch programs from the compiler's artifact server, so it then listens where pods can reach it.
export const MANAGER_OPTIONS: readonly OptionSpec[] = [
  ...COMMON_OPTIONS,
  ...BOUNDS_OPTIONS,
  ...TLS_OPTIONS,
  {
    flag: 'runner',
    value: 'backend',
    default: 'local',
    description: 'local (child processes) or kubernetes (StatefulSets)',
  },
  {
    flag: 'compiler-port',
    value: 'port',
    default: '0',
    description:
      "port of the compiler's artifact server (0 picks a free one); on --bind-address with --runner kubernetes",
  },
  {
    flag: 'compiler-url',
    value: 'url',
    description: 'the artifact server as pipelines reach it (default: http://127.0.0.1:<compiler port>)',
  },
  ...KUBERNETES_OPTIONS,
];

const ManagerConfigSchema = CommonConfigSchema.extend({
  runner: z.enum(['local', 'kubernetes']),
  compilerPort: CommonConfigSchema.shape.port,
  compilerUrl: serviceUrl.optional(),
  ...BoundsSchema.shape,
  ...TlsSchema.shape,
  ...KubernetesConfigSchema.shape,
}).superRefine(tlsBothOrNeither);
export type ManagerConfig = Readonly<z.infer<typeof ManagerConfigSchema> & { childEnv: Record<string, string> }>;

export function loadManagerConfig(
  flags: Readonly<Record<string, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
): ManagerConfig {
  return Object.freeze({
    ...loadWith(MANAGER_OPTIONS, ManagerConfigSchema, withKubeconfigFallback(flags, env), env),
    childEnv: childEnvironment(env),
  });
}
