import { readFileSync } from 'node:fs';

/** The platform version is the package version; the revision is stamped into dist by the build. */
export interface BuildInfo {
  version: string;
  revision: string;
}

export function readBuildInfo(): BuildInfo {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  let revision = 'dev';
  try {
    const info = JSON.parse(readFileSync(new URL('./build-info.json', import.meta.url), 'utf8')) as {
      revision?: string;
    };
    revision = info.revision ?? revision;
  } catch {
    // Running from source (tsx): no stamped revision.
  }
  return { version: pkg.version, revision };
}
