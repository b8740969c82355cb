// kube-proxy for the test cluster's real node: the same entry point as Kubernetes' cmd/kube-proxy,
// built from the published module, so that Service cluster IPs route from the node's pods
// (iptables mode; see test/cluster/node/README.md).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // the --logging-format=json option
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-proxy/app"
)

func main() {
	command := app.NewProxyCommand()
	code := cli.Run(command)
	os.Exit(code)
}
