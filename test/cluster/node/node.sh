#!/usr/bin/env bash
# Joins a real node to a running test cluster (`npm run cluster:up`), or takes it away again:
#   bash test/cluster/node/node.sh up     # containerd (CRI) + kubelet as Node svc-real-node, Ready
#   bash test/cluster/node/node.sh down   # stops both and their containers, removes the bridge
# The cluster's state dir is ${SVC_CLUSTER_STATE:-/tmp/svc-test-cluster}; the node's is its
# real-node/ subdir, sockets and runtime state under /run/svc-real-node (unix socket paths are short).
# Pods run on a CNI bridge `svc-cni0` with ${SVC_REAL_NODE_SUBNET:-10.244.0}.0/24, no masquerading:
# they reach nothing but each other and this machine. The node's own address is the bridge's .1.
# Pods for this node select it (`nodeSelector: {kubernetes.io/hostname: svc-real-node}`) and
# kube-scheduler, started here, binds them; the node agent binds the rest to its own node.
# CoreDNS, on the node's address, answers the pods' Service DNS (`<service>.<namespace>.svc.cluster.local`);
# pods reach the API server at the `kubernetes` Service (services.sh, start_apiserver_forward).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cluster_state="${SVC_CLUSTER_STATE:-/tmp/svc-test-cluster}"
state="$cluster_state/real-node"
run=/run/svc-real-node
node_name=svc-real-node
subnet="${SVC_REAL_NODE_SUBNET:-10.244.0}"
node_ip="$subnet.1"
bridge=svc-cni0
# The control plane's Service range (control-plane/daemons.ts): the one route pods get besides their
# subnet, to the node, where kube-proxy's NAT takes it.
service_range=10.96.0.0/16
log() { echo "node.sh: $*" >&2; }

# pids_of_cgroup: every process in the node's pod cgroups (kubelet cgroupRoot /svc-real-node).
pids_of_cgroup() {
  find /sys/fs/cgroup/memory/svc-real-node -name cgroup.procs -exec cat {} + 2>/dev/null || true
}
# pids_with_arg TEXT: processes whose command line contains TEXT (the shims name our socket).
pids_with_arg() {
  local dir
  for dir in /proc/[0-9]*; do
    if tr '\0' ' ' 2>/dev/null <"$dir/cmdline" | grep -qF -- "$1"; then echo "${dir#/proc/}"; fi
  done
}
# free_ports N: N TCP ports free right now, on one line.
free_ports() {
  python3 -c 'import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))' "$1"
}
stop_pid_file() {
  local file="$1" pid
  [[ -s "$file" ]] || return 0
  pid="$(cat "$file")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$file"
}

# client_kubeconfig NAME CN GROUP: $state/NAME.kubeconfig for user CN (in GROUP, if any), with a
# client certificate signed by the cluster's CA.
client_kubeconfig() {
  local name="$1" cn="$2" group="$3" subject
  subject="/CN=$cn${group:+/O=$group}"
  (cd "$state/pki" &&
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$name.key" 2>/dev/null &&
    openssl req -new -key "$name.key" -subj "$subject" -out "$name.csr" &&
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >client.ext &&
    openssl x509 -req -in "$name.csr" -CA "$ca_dir/ca.crt" -CAkey "$ca_dir/ca.key" -CAcreateserial \
      -CAserial "$state/pki/ca.srl" -days 3650 -extfile client.ext -out "$name.crt" 2>/dev/null)
  cat >"$state/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: svc-test, cluster: {server: "$server", certificate-authority: "$ca_dir/ca.crt"}}]
users: [{name: $name, user: {client-certificate: "$state/pki/$name.crt", client-key: "$state/pki/$name.key"}}]
contexts: [{name: svc-test, context: {cluster: svc-test, user: $name}}]
current-context: svc-test
EOF
}

# start_coredns, remove_kube_chains, start_kube_proxy.
# shellcheck source=services.sh
source "$here/services.sh"

down() {
  local kubeconfig="$cluster_state/admin.kubeconfig"
  # Pods first, through the API, so the kubelet tears their sandboxes (and CNI) down itself.
  if [[ -s "$state/kubelet.pid" && -f "$kubeconfig" ]] && kill -0 "$(cat "$state/kubelet.pid")" 2>/dev/null; then
    kubectl --kubeconfig "$kubeconfig" delete pods -A --field-selector "spec.nodeName=$node_name" \
      --wait=true --timeout=60s >&2 || true
    kubectl --kubeconfig "$kubeconfig" delete node "$node_name" --wait=false >&2 || true
    kubectl --kubeconfig "$kubeconfig" delete endpointslice -n default "kubernetes-$node_name" \
      --ignore-not-found >&2 || true
  fi
  stop_pid_file "$state/kube-scheduler.pid"
  stop_pid_file "$state/kube-proxy.pid"
  stop_pid_file "$state/kube-router.pid"
  stop_pid_file "$state/coredns.pid"
  stop_pid_file "$state/apiserver-forward.pid"
  stop_pid_file "$state/kubelet.pid"
  stop_pid_file "$state/containerd.pid"
  remove_kube_chains
  remove_kube_router_sets
  # Whatever a crash left: shims of our containerd, then every process in our pod cgroups.
  local pid
  for pid in $(pids_with_arg "$run/containerd.sock") $(pids_of_cgroup); do kill -9 "$pid" 2>/dev/null || true; done
  # Mounts under the node's dirs (container rootfs, shm, volumes), deepest first.
  { awk '{print $2}' /proc/mounts | grep -E "^($run|$state)/" || true; } | sort -r | while read -r mount; do
    umount -l "$mount" 2>/dev/null || true
  done
  ip link delete "$bridge" 2>/dev/null || true
  find /sys/fs/cgroup/*/svc-real-node -depth -type d -exec rmdir {} \; 2>/dev/null || true
  rm -rf "$state" "$run"
}

up() {
  [[ -s "$cluster_state/cluster.json" ]] || { log "no cluster at $cluster_state: npm run cluster:up first"; exit 1; }
  down
  # CNI plugins from Debian (bridge, host-local, portmap, loopback) and ipset (kube-router's
  # NetworkPolicy sets); images.sh installs the rest.
  local packages=()
  [[ -x /usr/lib/cni/bridge ]] || packages+=(containernetworking-plugins)
  command -v ipset >/dev/null || packages+=(ipset)
  if [[ ${#packages[@]} -gt 0 ]]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >&2
  fi
  local bin images
  bin="$(bash "$here/../build.sh" --node | tail -1)"
  images="$(bash "$here/images.sh")"
  local svc_image svc_next_image postgres_image pause_image image_dir
  svc_image="$(sed -n 's/^SVC_IMAGE=//p' <<<"$images")"
  svc_next_image="$(sed -n 's/^SVC_NEXT_IMAGE=//p' <<<"$images")"
  postgres_image="$(sed -n 's/^POSTGRES_IMAGE=//p' <<<"$images")"
  pause_image="$(sed -n 's/^PAUSE_IMAGE=//p' <<<"$images")"
  image_dir="$(sed -n 's/^IMAGE_DIR=//p' <<<"$images")"
  ca_dir="$cluster_state/pki"
  server="$(sed -n 's/.*"server": "\(.*\)".*/\1/p' "$cluster_state/cluster.json")"
  mkdir -p "$state"/{containerd,kubelet,cni/net.d,pki,logs} "$run"

  # ---- client certificates signed by the cluster's CA, and kubeconfigs with them ----
  # The kubelet as system:node:<name> in system:nodes (the Node authorizer); the scheduler as
  # system:kube-scheduler (its bootstrap ClusterRoles).
  client_kubeconfig kubelet "system:node:$node_name" system:nodes
  client_kubeconfig scheduler system:kube-scheduler ""
  # kube-proxy as system:kube-proxy (bound to system:node-proxier by the cluster's bootstrap policy).
  client_kubeconfig kube-proxy system:kube-proxy ""
  # CoreDNS as user svc:coredns, allowed what its kubernetes plugin watches.
  client_kubeconfig coredns svc:coredns ""
  # kube-router (NetworkPolicy) as user svc:kube-router, allowed what its firewall watches.
  client_kubeconfig kube-router svc:kube-router ""

  # ---- the bridge first, so the node has its address before the first pod ----
  ip link add "$bridge" type bridge
  ip addr add "$node_ip/24" dev "$bridge"
  ip link set "$bridge" up
  cat >"$state/cni/net.d/10-svc.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "svc-real-node",
  "plugins": [
    {"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$subnet.0/24", "gateway": "$node_ip"}]],
              "routes": [{"dst": "$service_range", "gw": "$node_ip"}],
              "dataDir": "$state/cni/ipam"}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
EOF

  start_coredns "$bin"
  start_apiserver_forward

  # ---- containerd with the CRI plugin, on its own socket/root/state ----
  cat >"$state/containerd/config.toml" <<EOF
version = 2
root = "$state/containerd/root"
state = "$run/containerd"
[grpc]
  address = "$run/containerd.sock"
[ttrpc]
  address = "$run/containerd.sock.ttrpc"
[debug]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "docker.io/$pause_image"
  # Without it every sandbox fails with runc's "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  # Nothing is pulled from outside: docker.io (where every short image name points) is this
  # machine's port 9, where nothing listens, so an absent image fails at once with ErrImagePull.
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "$state/containerd/certs.d"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$state/cni/net.d"
EOF
  mkdir -p "$state/containerd/certs.d/docker.io"
  # containerd 1.6 rejects a hosts.toml without a host table ("invalid `host` tree") and then falls
  # back to the public registry, so the host is given twice.
  printf '%s\n' 'server = "http://127.0.0.1:9"' '[host."http://127.0.0.1:9"]' '  capabilities = ["pull", "resolve"]' \
    >"$state/containerd/certs.d/docker.io/hosts.toml"
  /usr/bin/containerd --config "$state/containerd/config.toml" >"$state/logs/containerd.log" 2>&1 &
  echo $! >"$state/containerd.pid"
  for _ in $(seq 1 100); do [[ -S "$run/containerd.sock" ]] && break; sleep 0.1; done
  local start=$SECONDS
  for tar in "$image_dir"/*.tar; do
    ctr --address "$run/containerd.sock" -n k8s.io images import --no-unpack "$tar" >&2
  done
  log "images imported in $((SECONDS - start)) s"

  # ---- kubelet ----
  # Its cgroupRoot must exist in every hierarchy (cgroup v1 here); a new cpuset starts empty.
  local hierarchy
  for hierarchy in /sys/fs/cgroup/*/; do
    [[ "$hierarchy" == */unified/ ]] && continue
    mkdir -p "$hierarchy/svc-real-node"
  done
  cat /sys/fs/cgroup/cpuset/cpuset.cpus >/sys/fs/cgroup/cpuset/svc-real-node/cpuset.cpus
  cat /sys/fs/cgroup/cpuset/cpuset.mems >/sys/fs/cgroup/cpuset/svc-real-node/cpuset.mems
  local port
  port="$(free_ports 1)"
  cat >"$state/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: "$node_ip"
port: $port
readOnlyPort: 0
healthzPort: 0
containerRuntimeEndpoint: "unix://$run/containerd.sock"
cgroupDriver: cgroupfs
cgroupRoot: /svc-real-node
failCgroupV1: false
failSwapOn: false
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$ca_dir/ca.crt"}
authorization: {mode: Webhook}
# The disk is shared with everything else on the machine: evict only when nearly full.
evictionHard: {"nodefs.available": "2%", "imagefs.available": "2%", "memory.available": "100Mi"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
# Pods resolve names with CoreDNS on the node's address (start_coredns).
clusterDNS: ["$node_ip"]
clusterDomain: cluster.local
EOF
  "$bin/kubelet" --config="$state/kubelet/config.yaml" --kubeconfig="$state/kubelet.kubeconfig" \
    --root-dir="$state/kubelet/root" --cert-dir="$state/kubelet/pki" --hostname-override="$node_name" \
    --node-ip="$node_ip" --v=1 >"$state/logs/kubelet.log" 2>&1 &
  echo $! >"$state/kubelet.pid"
  local kubeconfig="$cluster_state/admin.kubeconfig"
  for _ in $(seq 1 120); do
    if [[ "$(kubectl --kubeconfig "$kubeconfig" get node "$node_name" \
      -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]]; then
      log "node $node_name Ready after $((SECONDS - start)) s; logs in $state/logs"
      # No node lifecycle controller runs (the node agent keeps its own Node Ready), so the taint the
      # kubelet registers with stays unless taken off here; the scheduler would place nothing.
      kubectl --kubeconfig "$kubeconfig" taint node "$node_name" node.kubernetes.io/not-ready:NoSchedule- >&2 || true
      # The scheduler, for pods that ask for this node (nodeSelector kubernetes.io/hostname): the
      # node agent leaves those alone and binds the rest to its own node.
      "$bin/kube-scheduler" --kubeconfig="$state/scheduler.kubeconfig" --leader-elect=false \
        --secure-port=0 --v=2 >"$state/logs/kube-scheduler.log" 2>&1 &
      echo $! >"$state/kube-scheduler.pid"
      start_kube_proxy "$bin"
      start_kube_router "$bin"
      sleep 1
      kill -0 "$(cat "$state/kube-scheduler.pid")" 2>/dev/null || { tail -20 "$state/logs/kube-scheduler.log" >&2; exit 1; }
      echo "SVC_IMAGE=docker.io/$svc_image"
      echo "SVC_NEXT_IMAGE=docker.io/$svc_next_image"
      echo "POSTGRES_IMAGE=docker.io/$postgres_image"
      return 0
    fi
    kill -0 "$(cat "$state/kubelet.pid")" 2>/dev/null || { tail -30 "$state/logs/kubelet.log" >&2; exit 1; }
    sleep 1
  done
  log "node $node_name not Ready after 120 s"; tail -30 "$state/logs/kubelet.log" >&2
  exit 1
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: node.sh up|down" >&2; exit 2 ;;
esac
