// kube-scheduler for the test cluster's real node: the same entry point as Kubernetes'
// cmd/kube-scheduler, built from the published module. It binds pods to the real node only after
// their PersistentVolumeClaims are bound, as on any cluster (a pod given `nodeName` directly reaches
// the kubelet first and gets a FailedMount "PVC is not bound").
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // the --logging-format=json option
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	command := app.NewSchedulerCommand()
	code := cli.Run(command)
	os.Exit(code)
}
