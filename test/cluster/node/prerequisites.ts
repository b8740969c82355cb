// What the real node needs from the machine before its global setup builds or starts anything, so
// that a run outside CI fails at once with the missing piece named instead of minutes later inside
// node.sh. `.ci/run` installs the apt packages; Go and kubectl come with the machine image (the
// control plane needs them too).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** What provides which programs (a name is looked for on PATH, a path as it is). */
const NEEDS: Readonly<Record<string, readonly string[]>> = {
  'apt package docker.io (brings containerd and runc)': ['containerd', 'ctr', 'runc', 'dockerd', 'docker'],
  'apt package mmdebstrap': ['mmdebstrap'],
  'apt package containernetworking-plugins': ['/usr/lib/cni/bridge', '/usr/lib/cni/host-local', '/usr/lib/cni/portmap'],
  'kubectl on PATH': ['kubectl'],
  'apt packages iproute2, openssl, python3': ['ip', 'openssl', 'python3'],
};

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found(file: string, path: string): boolean {
  if (file.startsWith('/')) return executable(file);
  return path.split(delimiter).some((dir) => dir !== '' && executable(join(dir, file)));
}

/**
 * What is missing (empty when nothing is): root, since the node makes a bridge, cgroups and mounts,
 * and each program of NEEDS with what provides it. Go is looked for as build.sh does (PATH, then
 * /usr/local/go/bin).
 */
export function missingPrerequisites(uid: number, path: string): string[] {
  const missing: string[] = [];
  if (uid !== 0) missing.push('root (the node makes a network bridge, cgroups and mounts): run as root');
  for (const [provider, files] of Object.entries(NEEDS)) {
    for (const file of files) if (!found(file, path)) missing.push(`${file}: ${provider}`);
  }
  if (!found('go', path) && !executable('/usr/local/go/bin/go')) missing.push('go: Go on PATH or in /usr/local/go');
  return missing;
}
