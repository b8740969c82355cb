// kube-proxy for the test cluster's real node: Kubernetes' cmd/kube-proxy command, built from the
// published module, so that Service cluster IPs route from the node's pods (iptables mode; see
// test/cluster/node/README.md). Without upstream's JSON-logging and metrics registrations: the node
// needs neither.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-proxy/app"
)

func main() { os.Exit(cli.Run(app.NewProxyCommand())) }
