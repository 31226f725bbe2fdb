//go:build !linux

package forkjoin

// osYield does nothing here: the thread placement it answers was seen on
// Linux (see Worker.search), and the syscall package offers sched_yield
// only there.
func osYield() {}
