// The Node.js this program needs. It is checked here, at run time, and not by package.json
// `engines`: npm checks `engines` against the Node that runs npm itself, which on many machines is
// older than the one the project brings (the `node` devDependency, put first on PATH by `npx` and
// `npm run`). That check only printed EBADENGINE warnings on `npx svc …` while the program then ran on
// the project's own Node 22 anyway; a wrong Node is reported here, once, where it matters.
export const REQUIRED_NODE: readonly [number, number] = [22, 12];

/** Whether a `process.versions.node` string (e.g. "22.23.3") is new enough. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > REQUIRED_NODE[0] || (major === REQUIRED_NODE[0] && minor >= REQUIRED_NODE[1]);
}

if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(
    `svc needs Node.js ${REQUIRED_NODE.join('.')} or newer, this is ${process.version}. ` +
      'Run it through `npx svc …` or `npm run …` in the project, which use the Node.js the project ' +
      'installs (the `node` devDependency).\n',
  );
  process.exit(1);
}
