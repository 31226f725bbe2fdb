//go:build race

package forkjoin

import "sync/atomic"

// spawnSlot is a slot of a spawnQueue's ring: atomic in race builds, so
// that the detector does not report a slow thief's read of a slot being
// overwritten, which is harmless (squeue.go), and still checks every
// other access.
type spawnSlot struct{ t atomic.Pointer[task] }

func (s *spawnSlot) load() *task   { return s.t.Load() }
func (s *spawnSlot) store(t *task) { s.t.Store(t) }
