//go:build !linux

package forkjoin

// osYield does nothing here: the thread placement it answers is that of
// Linux (see keepLooking), and the syscall package offers sched_yield
// only there.
func osYield() {}
