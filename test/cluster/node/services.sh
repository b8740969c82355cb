# Sourced by node.sh: the node's services beside the kubelet (CoreDNS, kube-proxy, the API server's
# forward for pods) and the removal of
# the iptables chains the kubelet and kube-proxy leave. Uses node.sh's variables (state dirs, node
# name and address, subnet) and its helpers (log, free_ports).

# start_coredns BIN: CoreDNS on the node's address, port 53, serving cluster.local from the API
# (Services, EndpointSlices) and nothing else: it forwards no name, so pods reach no resolver
# outside. Waits until its ready endpoint says the kubernetes plugin has synced.
start_coredns() {
  local coredns ports health ready
  coredns="$(ls "$1"/coredns-* | tail -1)"
  kubectl --kubeconfig "$cluster_state/admin.kubeconfig" apply -f - >&2 <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "svc:coredns"}
rules:
  - {apiGroups: [""], resources: [services, namespaces, pods], verbs: [list, watch]}
  - {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "svc:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "svc:coredns"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "svc:coredns"}]
EOF
  ports="$(free_ports 2)"
  read -r health ready <<<"$ports"
  cat >"$state/Corefile" <<EOF
cluster.local:53 {
    bind $node_ip
    errors
    health $node_ip:$health
    ready $node_ip:$ready
    kubernetes cluster.local {
        kubeconfig $state/coredns.kubeconfig svc-test
    }
}
EOF
  "$coredns" -conf "$state/Corefile" >"$state/logs/coredns.log" 2>&1 &
  echo $! >"$state/coredns.pid"
  for _ in $(seq 1 100); do
    if python3 -c "import urllib.request; urllib.request.urlopen('http://$node_ip:$ready/ready', timeout=1)" 2>/dev/null; then
      log "CoreDNS ready on $node_ip:53"
      return 0
    fi
    kill -0 "$(cat "$state/coredns.pid")" 2>/dev/null || { tail -20 "$state/logs/coredns.log" >&2; exit 1; }
    sleep 0.2
  done
  log "CoreDNS not ready after 20 s"
  tail -20 "$state/logs/coredns.log" >&2
  exit 1
}

# start_apiserver_forward: the API server listens on 127.0.0.1 only (control-plane/daemons.ts), which
# no pod reaches. tcp-forward.py takes its port on the node's address to it, and an EndpointSlice
# of the `kubernetes` Service (no reconciler keeps one: --endpoint-reconciler-type=none) names that
# address, so a pod's in-cluster config (https://10.96.0.1:443, its service-account token) reaches
# the API server through kube-proxy. The server's certificate names 10.96.0.1 (control-plane/pki.ts).
start_apiserver_forward() {
  local port="${server##*:}"
  python3 "$here/tcp-forward.py" "$node_ip" "$port" 127.0.0.1 "$port" >"$state/logs/apiserver-forward.log" 2>&1 &
  echo $! >"$state/apiserver-forward.pid"
  kubectl --kubeconfig "$cluster_state/admin.kubeconfig" apply -f - >&2 <<EOF
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kubernetes-$node_name
  namespace: default
  labels: {kubernetes.io/service-name: kubernetes, endpointslice.kubernetes.io/managed-by: $node_name}
addressType: IPv4
endpoints: [{addresses: ["$node_ip"], conditions: {ready: true}}]
ports: [{name: https, port: $port, protocol: TCP}]
EOF
  sleep 0.2
  kill -0 "$(cat "$state/apiserver-forward.pid")" 2>/dev/null || { cat "$state/logs/apiserver-forward.log" >&2; exit 1; }
}

# remove_kube_chains: the iptables chains of the kubelet (KUBE-FIREWALL, which drops packets to
# 127.0.0.0/8 from any other source, its canaries and hint) and of kube-proxy (Service NAT), and the
# rules jumping to them, would outlive them on this machine: removed once both are stopped. One real node per machine, so every KUBE-
# chain is ours.
remove_kube_chains() {
  local cmd table rule chain chains
  for cmd in iptables ip6tables; do
    command -v "$cmd" >/dev/null 2>&1 || continue
    for table in filter nat mangle; do
      while read -r rule; do
        eval "$cmd -t $table -D ${rule#-A }" 2>/dev/null || true
      done < <("$cmd" -t "$table" -S 2>/dev/null | grep -E -- '^-A [A-Z]+ .*-j KUBE-' || true)
      # Flushed first, all of them, since kube-proxy's chains jump to each other.
      chains="$("$cmd" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[A-Za-z0-9-]*\)$/\1/p')"
      for chain in $chains; do "$cmd" -t "$table" -F "$chain" 2>/dev/null || true; done
      for chain in $chains; do "$cmd" -t "$table" -X "$chain" 2>/dev/null || true; done
    done
  done
}

# start_kube_router BIN: kube-router's firewall alone (no routing, no service proxy), so that the
# node enforces NetworkPolicy as a policy-enforcing CNI would (the chart ships one for pipeline pods;
# test/cluster/node/helm.test.ts proves it). Its chains are KUBE-ROUTER-* (remove_kube_chains takes
# them); its ipsets are removed by remove_kube_router_sets. Traffic from the node's own address (the
# kubelet's probes, the tests on this machine) stays admitted, as kube-router always does.
start_kube_router() {
  local router
  router="$(ls "$1"/kube-router-* | tail -1)"
  kubectl --kubeconfig "$cluster_state/admin.kubeconfig" apply -f - >&2 <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "svc:kube-router"}
rules:
  - {apiGroups: [""], resources: [pods, namespaces, nodes, services, endpoints], verbs: [get, list, watch]}
  - {apiGroups: [networking.k8s.io], resources: [networkpolicies], verbs: [get, list, watch]}
  - {apiGroups: [discovery.k8s.io], resources: [endpointslices], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "svc:kube-router"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "svc:kube-router"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "svc:kube-router"}]
EOF
  "$router" --run-firewall=true --run-router=false --run-service-proxy=false \
    --kubeconfig="$state/kube-router.kubeconfig" --hostname-override="$node_name" \
    --service-cluster-ip-range=10.96.0.0/16 --health-port=0 --metrics-port=0 \
    --v=1 >"$state/logs/kube-router.log" 2>&1 &
  echo $! >"$state/kube-router.pid"
  sleep 1
  kill -0 "$(cat "$state/kube-router.pid")" 2>/dev/null || { tail -20 "$state/logs/kube-router.log" >&2; exit 1; }
}

# remove_kube_router_sets: the ipsets kube-router made (their names start with KUBE-), once it is
# stopped and no iptables rule refers to them any more.
remove_kube_router_sets() {
  command -v ipset >/dev/null 2>&1 || return 0
  local set
  for set in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|inet6:KUBE-)' || true); do
    ipset destroy "$set" 2>/dev/null || true
  done
}

# start_kube_proxy BIN: kube-proxy in iptables mode, so that Service cluster IPs route from the
# node's pods. Kept to the node: NodePorts only on the bridge's subnet, none on localhost (which
# would set route_localnet on this machine), no conntrack sysctls changed (all 0: left as they are).
start_kube_proxy() {
  local ports healthz metrics
  ports="$(free_ports 2)"
  read -r healthz metrics <<<"$ports"
  cat >"$state/kube-proxy.yaml" <<EOF
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: "$state/kube-proxy.kubeconfig"}
hostnameOverride: $node_name
bindAddress: $node_ip
healthzBindAddress: "$node_ip:$healthz"
metricsBindAddress: "$node_ip:$metrics"
mode: iptables
clusterCIDR: "$subnet.0/24"
nodePortAddresses: ["$subnet.0/24"]
iptables: {localhostNodePorts: false}
conntrack: {maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
EOF
  "$1/kube-proxy" --config="$state/kube-proxy.yaml" --v=1 >"$state/logs/kube-proxy.log" 2>&1 &
  echo $! >"$state/kube-proxy.pid"
  sleep 1
  kill -0 "$(cat "$state/kube-proxy.pid")" 2>/dev/null || { tail -20 "$state/logs/kube-proxy.log" >&2; exit 1; }
}
