// Command lines of the control-plane daemons: what each flag is for is the point of this file.
import { join } from 'node:path';
import type { ClientCert, Pki } from './pki.js';

export interface Ports {
  etcd: number;
  etcdPeer: number;
  apiserver: number;
  controllerManager: number;
}

/** Allocation range for Service objects only: nothing routes to it here (no kube-proxy). */
const SERVICE_RANGE = '10.96.0.0/16';

export function etcdArgs(stateDir: string, ports: Ports): string[] {
  const client = `http://127.0.0.1:${ports.etcd}`;
  const peer = `http://127.0.0.1:${ports.etcdPeer}`;
  return [
    '--name=default',
    `--data-dir=${join(stateDir, 'etcd')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    // Its own free port: the default 2380 may be taken by another cluster on this machine.
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    // A throwaway cluster: durability is not worth the fsync latency.
    '--unsafe-no-fsync',
    '--log-level=warn',
  ];
}

export function apiserverArgs(stateDir: string, ports: Ports, pki: Pki, kubeletClient: ClientCert): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${ports.etcd}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${ports.apiserver}`,
    `--cert-dir=${join(stateDir, 'apiserver')}`,
    `--tls-cert-file=${pki.serverCert}`,
    `--tls-private-key-file=${pki.serverKey}`,
    // Users are client certificates signed by this CA (CN = user, O = groups).
    `--client-ca-file=${pki.caCert}`,
    '--authorization-mode=Node,RBAC',
    `--service-account-key-file=${pki.saPub}`,
    `--service-account-signing-key-file=${pki.saKey}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-cluster-ip-range=${SERVICE_RANGE}`,
    // The default reconciler would publish 127.0.0.1 as the `kubernetes` Service's endpoint,
    // which endpoint validation rejects (loopback), logging errors forever.
    '--endpoint-reconciler-type=none',
    '--allow-privileged=true',
    // For a real kubelet (test/cluster/node): `kubectl logs/exec` go to the node's InternalIP (its
    // name resolves nowhere here), with a client certificate the kubelet's webhook authorizes.
    '--kubelet-preferred-address-types=InternalIP',
    `--kubelet-client-certificate=${kubeletClient.cert}`,
    `--kubelet-client-key=${kubeletClient.key}`,
    '--profiling=false',
    '--v=1',
  ];
}

export function controllerManagerArgs(stateDir: string, ports: Ports, pki: Pki, kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    // No --authentication/authorization-kubeconfig: nothing here calls the controller manager's own
    // endpoints, and with them it exits when started before the API server has its RBAC roles.
    '--bind-address=127.0.0.1',
    `--secure-port=${ports.controllerManager}`,
    `--cert-dir=${join(stateDir, 'kcm')}`,
    // The node agent keeps its Node Ready itself; without a kubelet the lifecycle controller
    // would only taint and evict.
    '--controllers=*,-node-lifecycle-controller',
    // PVCs of the `standard` class become directories under /tmp/hostpath_pv.
    '--enable-hostpath-provisioner',
    `--root-ca-file=${pki.caCert}`,
    `--service-account-private-key-file=${pki.saKey}`,
    '--use-service-account-credentials',
    `--cluster-signing-cert-file=${pki.caCert}`,
    `--cluster-signing-key-file=${pki.caKey}`,
    `--service-cluster-ip-range=${SERVICE_RANGE}`,
    // One instance: waiting for a lease only costs start-up time.
    '--leader-elect=false',
    '--profiling=false',
    '--v=1',
  ];
}
