package main

// forkjoin.Group, errgroup's contract on a pool, used as errgroup is:
// NewGroup, Go from the calling goroutine (and, in the spawn test, from the
// group's own tasks), Wait.
//
//   - forkjoin-group: on a pool of parallelism env.P (Open starts it), for
//     the task batches, the spawn test and the blocking workload, where the
//     pool adds goroutines while its participants are held up in tasks.
//   - forkjoin-group-1000: the blocking workload on pool.New(1000), the
//     other way out of blocking tasks: more participants than tasks that
//     block at once (a thousand, for up to thousands of tasks).

import (
	"context"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

func init() {
	register(&Strategy{
		Name:   "forkjoin-group",
		Family: "forkjoin",
		Desc:   "forkjoin.Group (NewGroup, Go, Wait) on the pool: errgroup on the pool's participants",
		Open:   openPool,
		Tasks: func(env *Env, ts *TaskSet) uint64 {
			return tasksPar(newGroupScope(poolOf(env)), ts)
		},
		Spawn: func(env *Env, sp *SpawnProblem) uint64 {
			return spawnPar(newGroupScope(poolOf(env)), sp)
		},
		Block: func(env *Env, bp *BlockProblem) uint64 { return blockGroup(poolOf(env), bp) },
	})
	register(&Strategy{
		Name:   "forkjoin-group-1000",
		Family: "forkjoin",
		Desc:   "forkjoin.Group on pool.New(1000): a participant for every task that blocks (up to 1000)",
		Open: func(int) (any, func()) {
			pl := pool.New(1000)
			return pl, pl.Close
		},
		Block: func(env *Env, bp *BlockProblem) uint64 { return blockGroup(poolOf(env), bp) },
	})
}

// groupScope is a forkjoin.Group used as a scope. Its tasks never fail, so
// an error from Wait is a bug of the Group: it panics, and the harness
// reports the cell wrong.
type groupScope struct{ g *forkjoin.Group }

func newGroupScope(p *pool.Pool) groupScope {
	g, _ := forkjoin.NewGroup(context.Background(), p)
	return groupScope{g}
}

func (s groupScope) Go(f func()) {
	s.g.Go(func() error {
		f()
		return nil
	})
}

func (s groupScope) Wait() {
	if err := s.g.Wait(); err != nil {
		panic(err)
	}
}

// blockGroup runs the blocking workload on a Group of p.
func blockGroup(p *pool.Pool, bp *BlockProblem) uint64 {
	g, ctx := forkjoin.NewGroup(context.Background(), p)
	return bp.run(func(t blockTask) { g.Go(func() error { return t(ctx) }) }, g.Wait)
}
