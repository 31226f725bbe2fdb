package main

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// TestBlockStrategies runs every strategy that implements the blocking
// workload and is not a bounded pool on it, at parallelism 1 and at
// GOMAXPROCS, each run with a timeout that fails instead of hanging: each
// must report the last task's error with every task run.
func TestBlockStrategies(t *testing.T) {
	const n = 500
	for _, p := range []int{1, runtime.GOMAXPROCS(0)} {
		for _, s := range strategies() {
			if s.Block == nil || s.Bounded {
				continue
			}
			got := withTimeout(t, s.Name, func() uint64 {
				env := &Env{P: p}
				if s.Open != nil {
					var closeFn func()
					env.State, closeFn = s.Open(p)
					defer closeFn()
				}
				return s.Block(env, &BlockProblem{N: n})
			})
			if got != n {
				t.Errorf("p %d, %s: result %d, want %d (the last task's error, every task run)", p, s.Name, got, n)
			}
		}
	}
}

// TestBlockCheck: the result tells a run that lost the error, reported
// another one or lost a task from a good one.
func TestBlockCheck(t *testing.T) {
	bp := &BlockProblem{N: 10}
	all := make([]bool, bp.N)
	for i := range all {
		all[i] = true
	}
	if got := blockResult(errLastTask, all); got != 10 {
		t.Errorf("a good run: %d, want 10", got)
	}
	for _, err := range []error{nil, context.Canceled, errors.New("another"), errors.Join(errLastTask, context.Canceled)} {
		if got := blockResult(err, all); got == 10 {
			t.Errorf("Wait returned %v: counted as good", err)
		}
	}
	all[3] = false
	if got := blockResult(errLastTask, all); got == 10 {
		t.Error("a task that did not run: counted as good")
	}
	// A group whose Wait loses the error (its tasks run at once, on a
	// context already cancelled): the whole run is wrong.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := bp.run(func(t blockTask) { t(ctx) }, func() error { return nil }); got == 10 {
		t.Error("a run that lost the error: counted as good")
	}
}
