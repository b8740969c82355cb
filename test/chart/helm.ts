// Helm for the chart tests: the binary built from the Go module proxy by build-helm.sh (cached outside
// the repo), and `helm template` output parsed into objects the tests can look at.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as yaml from 'js-yaml';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const chartDir = join(repoRoot, 'charts', 'svc');

let helmBinary: string | undefined;

/** Path of the helm binary; builds it on first use (minutes when the cache is cold, then milliseconds). */
export function helm(): string {
  if (helmBinary) return helmBinary;
  const out = execFileSync('bash', [join(repoRoot, 'test', 'chart', 'build-helm.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const bin = out.trim().split('\n').pop() ?? '';
  helmBinary = join(bin, 'helm');
  return helmBinary;
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with args; never throws, so tests can assert on failures. */
export function runHelm(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunResult {
  const r = spawnSync(helm(), args, { encoding: 'utf8', env: { ...process.env, ...env }, maxBuffer: 64 << 20 });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * `--set`-style values as a flat list: `['logJson=true', ...]`; `setString` for values that must stay
 * strings; `setJson` for maps and lists (`['pipeline.nodeSelector={"pool":"p"}']`).
 */
export interface Values {
  set?: readonly string[];
  setString?: readonly string[];
  setJson?: readonly string[];
}

export function valueArgs(values: Values = {}): string[] {
  return [
    ...(values.set ?? []).flatMap((v) => ['--set', v]),
    ...(values.setString ?? []).flatMap((v) => ['--set-string', v]),
    ...(values.setJson ?? []).flatMap((v) => ['--set-json', v]),
  ];
}

/** A Kubernetes object as helm renders it: only what the tests read is typed. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
}

export interface PodSpec {
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string } }[];
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  affinity?: unknown;
}

/** Renders the chart (release `rel` in namespace `ns` unless given) and parses every document. */
export function render(values: Values = {}, release = 'rel', namespace = 'ns'): K8sObject[] {
  const r = runHelm(['template', release, chartDir, '--namespace', namespace, ...valueArgs(values)]);
  if (r.status !== 0) throw new Error(`helm template failed (${r.status}): ${r.stderr}`);
  return parseManifests(r.stdout);
}

export function parseManifests(text: string): K8sObject[] {
  return yaml.loadAll(text).filter((d): d is K8sObject => typeof d === 'object' && d !== null && 'kind' in d);
}

/** The pod spec of a Deployment or StatefulSet. */
export function podSpec(obj: K8sObject): PodSpec {
  const spec = obj['spec'] as { template?: { spec?: PodSpec } } | undefined;
  const pod = spec?.template?.spec;
  if (!pod) throw new Error(`${obj.kind} ${obj.metadata.name} has no pod template`);
  return pod;
}

export const workloads = (objs: K8sObject[]): K8sObject[] =>
  objs.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');

/** Containers that run svc itself (every workload but the bundled PostgreSQL). */
export function svcContainers(objs: K8sObject[]): { owner: string; container: Container }[] {
  return workloads(objs)
    .filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] !== 'postgresql')
    .flatMap((o) => podSpec(o).containers.map((container) => ({ owner: o.metadata.name, container })));
}

export function envOf(container: Container): Map<string, EnvVar> {
  return new Map((container.env ?? []).map((e) => [e.name, e]));
}

/** The plain-valued env of a container, as svc's config.ts reads it (valueFrom entries left out). */
export const plainEnv = (c: Container): Record<string, string> =>
  Object.fromEntries([...envOf(c)].flatMap(([k, v]) => (v.value === undefined ? [] : [[k, v.value]])));

export function byKind(objs: K8sObject[], kind: string): K8sObject[] {
  return objs.filter((o) => o.kind === kind);
}

export function one(objs: K8sObject[], kind: string, name: string): K8sObject {
  const found = objs.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} among ${objs.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`);
  return found;
}

export const readRepoFile = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');
