package main

import (
	"context"
	"errors"
	"fmt"
)

// The blocking workload: N tasks of one group, the first N-1 of which wait
// for the group's context, while the last returns an error, which cancels
// it. It is the errgroup pattern of a worker waiting for a sibling's
// failure, at its starkest: nothing computes, every task but one blocks,
// and the one that releases them is submitted last. A run is timed from
// making the group to its Wait's return, so what it measures is how fast
// the tasks are started and, once the last one fails, unwound.
//
// With a goroutine per task (errgroup, conc's unbounded pool, goroutines
// and a WaitGroup) the last task starts at once. A bounded pool (errgroup
// with SetLimit, ants, pond) gives its few goroutines to the first tasks,
// which wait for ever: the last one stays queued, or its Submit blocks,
// and the run deadlocks (the harness finds it by the probe's timeout).
// forkjoin's Group runs on a pool of P participants and adds goroutines
// while they are all held up in tasks (docs/architecture.md, "Tasks that
// block"), so it completes, on a pool of any size.

// BlockProblem is N tasks of the blocking workload.
type BlockProblem struct {
	N int
}

// errLastTask is the error of the last task: every strategy's group must
// report exactly it.
var errLastTask = errors.New("bench: the last task failed")

// blockTask is one task of the workload, given its group's context.
type blockTask func(ctx context.Context) error

// run submits the tasks with submit, in order, waits with wait and checks
// the outcome: the result is N when wait returned the last task's error and
// every task ran to its end, something else otherwise. Each task records
// that it ran in a slot of its own (no atomic shared by all of them); wait
// orders those writes before the count.
func (bp *BlockProblem) run(submit func(blockTask), wait func() error) uint64 {
	done := make([]bool, bp.N)
	for i := range bp.N - 1 {
		submit(func(ctx context.Context) error {
			<-ctx.Done()
			done[i] = true
			return nil
		})
	}
	submit(func(context.Context) error {
		done[bp.N-1] = true
		return errLastTask
	})
	return blockResult(wait(), done)
}

// blockResult is the result of a run: the number of tasks that ran when
// err is the last task's error, 0 otherwise.
func blockResult(err error, done []bool) uint64 {
	if err != errLastTask {
		return 0
	}
	n := uint64(0)
	for _, d := range done {
		if d {
			n++
		}
	}
	return n
}

// blockScope runs the problem on a scope that knows no errors and no
// context (goroutines and a WaitGroup, a pool's Submit): a context
// cancelled with the first task's error, as one writes by hand.
func blockScope(s scope, bp *BlockProblem) uint64 {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	return bp.run(func(t blockTask) {
		s.Go(func() {
			if err := t(ctx); err != nil {
				cancel(err)
			}
		})
	}, func() error {
		s.Wait()
		return context.Cause(ctx)
	})
}

// blockWorkload is the blocking workload with n tasks; its probe, which
// finds the deadlocks, has 100.
func blockWorkload(n int) *Workload {
	mk := func(n int) func() *Instance {
		return func() *Instance {
			return &Instance{Units: float64(n), Expected: uint64(n), HasExpected: true,
				block: &BlockProblem{N: n}}
		}
	}
	return &Workload{
		ID:    fmt.Sprintf("block/%d", n),
		Label: fmt.Sprintf("%d tasks: all but the last wait for the group's context, the last fails", n),
		Kind:  KindBlock, UnitName: "task", Nesting: NestBlock,
		build: mk(n), probe: mk(min(n, 100)),
	}
}
