// pause: the sandbox ("infra") container of every pod on the test cluster's real node, standing
// in for registry.k8s.io/pause, which cannot be pulled here. Like the upstream one it holds the
// pod's namespaces open, reaps orphans (it is PID 1 of a shared PID namespace) and exits on
// SIGINT/SIGTERM. Built static (CGO_ENABLED=0) so its image is this one file.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
