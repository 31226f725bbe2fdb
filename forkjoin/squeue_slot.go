//go:build !race

package forkjoin

// spawnSlot is a slot of a spawnQueue's ring: a plain word outside race
// builds (why that is safe: squeue.go).
type spawnSlot struct{ t *task }

func (s *spawnSlot) load() *task   { return s.t }
func (s *spawnSlot) store(t *task) { s.t = t }
