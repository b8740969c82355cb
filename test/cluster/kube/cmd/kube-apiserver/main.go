// kube-apiserver for the test cluster: the same entry point as Kubernetes' cmd/kube-apiserver,
// built from the published module instead of a Kubernetes checkout.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // the --logging-format=json option
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
)

func main() {
	command := app.NewAPIServerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
