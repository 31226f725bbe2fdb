//go:build !amd64 || race

package forkjoin

import "sync/atomic"

// publish stores v into a spawnQueue's bottom (see publish_amd64.go, where
// it is a release store; elsewhere, and in race builds, it is the
// sequentially consistent atomic store).
func publish(bottom *atomic.Int64, v int64) { bottom.Store(v) }
