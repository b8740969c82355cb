// The node agent's "registry": which local program an image stands for. There is no container
// runtime here, so an image the config does not name cannot be pulled (ErrImagePull).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';

export interface ImageSpec {
  /** The image's ENTRYPOINT: used unless the container sets `command`. */
  entrypoint: string[];
  /** The image's CMD: used when the container sets neither `command` nor `args`. */
  cmd?: string[];
  /**
   * The image's ENV, under the pod's own env. $(POD_IP) and the like refer to the agent's extras:
   * e.g. SVC_BIND_ADDRESS=$(POD_IP) keeps a program that binds 0.0.0.0 by default on its pod's
   * address, which a network namespace would do in a real cluster.
   */
  env?: Record<string, string>;
}

export interface ImageConfig {
  images: Record<string, ImageSpec>;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string');
}

/** Loads the config and resolves `node` and relative paths, so specs are ready to spawn. */
export function loadImageConfig(file: string): ImageConfig {
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const images = (raw as { images?: unknown }).images;
  if (typeof images !== 'object' || images === null) throw new Error(`${file}: no "images" object`);
  const base = dirname(file);
  const fix = (arg: string) =>
    arg === 'node' ? process.execPath : arg.startsWith('./') || arg.startsWith('../') ? resolve(base, arg) : arg;
  const out: Record<string, ImageSpec> = {};
  for (const [name, spec] of Object.entries(images)) {
    const { entrypoint, cmd, env } = spec as { entrypoint?: unknown; cmd?: unknown; env?: unknown };
    if (!isStringArray(entrypoint) || (cmd !== undefined && !isStringArray(cmd))) {
      throw new Error(`${file}: image ${name} needs "entrypoint" (and optional "cmd") as string arrays`);
    }
    if (env !== undefined && !isStringRecord(env)) throw new Error(`${file}: image ${name}: "env" must map to strings`);
    out[name] = { entrypoint: entrypoint.map(fix), ...(cmd ? { cmd: cmd.map(fix) } : {}), ...(env ? { env } : {}) };
  }
  return { images: out };
}

/** The spec for `image`: an exact key first, else the key equal to the image without its tag. */
export function findImage(config: ImageConfig, image: string): ImageSpec | undefined {
  const exact = config.images[image];
  if (exact) return exact;
  const withoutDigest = image.split('@')[0] ?? image;
  const lastColon = withoutDigest.lastIndexOf(':');
  const repo = lastColon > withoutDigest.lastIndexOf('/') ? withoutDigest.slice(0, lastColon) : withoutDigest;
  return config.images[repo];
}

/**
 * argv the way a container runtime combines ENTRYPOINT/CMD with the pod's command/args. `fromPod`
 * maps the values the pod spec wrote (container paths to host paths, $(VAR)); the image's own
 * parts are host paths already and stay as they are.
 */
export function containerArgv(
  spec: ImageSpec,
  container: V1Container,
  fromPod: (arg: string) => string = (arg) => arg,
): string[] {
  const args = (container.args ?? []).map(fromPod);
  if (container.command && container.command.length > 0) return [...container.command.map(fromPod), ...args];
  return [...spec.entrypoint, ...(container.args ? args : (spec.cmd ?? []))];
}
