//go:build tools

// Package tools pins etcd's main package as a dependency of this module so that
// `go build go.etcd.io/etcd/server/v3` resolves it with this module's go.sum.
package tools

import _ "go.etcd.io/etcd/server/v3"
