//go:build tools

// The real node's NetworkPolicy enforcement: kube-router's firewall alone (no routing, no service
// proxy), built from the published module like the rest of the test cluster.
package tools

import _ "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router"
