// CoreDNS for the test cluster's real node: Service DNS (`<service>.<namespace>.svc.cluster.local`)
// for its pods, with only the plugins that needs (kubernetes; bind, errors, health and ready around it),
// built from the published module like the rest of the cluster (see test/cluster/node/README.md).
// Nothing is forwarded: a name outside the cluster's zones gets no answer from here.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The plugins in the order a query passes them (upstream's plugin.cfg order).
var directives = []string{"bind", "ready", "health", "errors", "kubernetes"}

func init() {
	dnsserver.Directives = directives
}

func main() {
	coremain.Run()
}
