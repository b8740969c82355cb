import { execFileSync } from 'node:child_process';

/**
 * Runs a bash script of the test setup and returns the `NAME=value` lines of its stdout (images.sh,
 * node.sh, dockerd.sh print what they built or started so); its progress goes to stderr as it runs.
 */
export function scriptValues(script: string, args: string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out = execFileSync('bash', [script, ...args], { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'] });
  return Object.fromEntries(
    out
      .split('\n')
      .map((line) => /^([A-Z_]+)=(.*)$/.exec(line))
      .flatMap((m) => (m?.[1] && m[2] !== undefined ? [[m[1], m[2]] as const] : [])),
  );
}
