//go:build amd64 && !race

package forkjoin

import "sync/atomic"

// publish stores v into a spawnQueue's bottom with release ordering only:
// every store the owner made before it (the slots it fills) is visible to
// a goroutine whose atomic load of bottom sees v. On amd64 a plain MOV is
// such a store (x86 commits stores in program order, and an atomic load is
// a plain MOV that is not reordered with later loads); atomic.Int64.Store
// is an XCHG, which in addition waits until every earlier store has
// reached the cache: for a spawn, until the line of the task it just
// filled is owned, a miss on a cold task (docs/BENCHMARKS.md, Tasks,
// "Session 15"). A push needs no more than release: it is pop, not push,
// that needs the store→load fence of the Chase–Lev deque, and pop keeps
// its sequentially consistent store.
//
// The function is in assembly (publish_amd64.s): Go has no release store,
// and a plain Go store to an atomic's memory would be a data race. A call
// to an assembly function is also a compiler barrier: the slot stores
// before it stay before it. Race builds use the atomic store
// (publish_other.go), so that the detector sees the publication.
//
//go:noescape
func publish(bottom *atomic.Int64, v int64)
