// kube-controller-manager for the test cluster: the same entry point as Kubernetes'
// cmd/kube-controller-manager, built from the published module.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"           // the --logging-format=json option
	_ "k8s.io/component-base/metrics/prometheus/clientgo"  // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"   // version metric, as upstream
	_ "k8s.io/component-base/metrics/prometheus/workqueue" // workqueue metrics, as upstream
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	command := app.NewControllerManagerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
