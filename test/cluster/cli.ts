// `npm run cluster:up` / `npm run cluster:down`: a long-lived test cluster for working by hand.
// The state dir defaults to /tmp/svc-test-cluster (SVC_CLUSTER_STATE overrides); the vitest global
// setup uses its own dir and pod addresses, so both can run at once.
import { restartNodeAgent, startCluster, stopCluster } from './control-plane/cluster.js';

const stateDir = process.env.SVC_CLUSTER_STATE ?? '/tmp/svc-test-cluster';
const command = process.argv[2];

if (command === 'up') {
  const info = await startCluster({ stateDir, podSubnet: process.env.SVC_POD_SUBNET ?? '127.10' });
  process.stderr.write(`cluster: state and logs in ${info.stateDir}; stop with npm run cluster:down\n`);
  // The only line on stdout, so `eval "$(npm run -s cluster:up)"` works.
  process.stdout.write(`export KUBECONFIG=${info.kubeconfig}\n`);
} else if (command === 'down') {
  await stopCluster(stateDir, (line) => process.stderr.write(`${line}\n`));
  process.stderr.write(`cluster: removed ${stateDir}\n`);
} else if (command === 'restart-agent') {
  // For trying the agent's convergence by hand: kill -9, then start a fresh one.
  const pid = await restartNodeAgent(stateDir);
  process.stderr.write(`cluster: node agent restarted (pid ${pid})\n`);
} else {
  process.stderr.write('usage: tsx test/cluster/cli.ts up|down|restart-agent\n');
  process.exitCode = 2;
}
