package main

import (
	"context"

	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/pool"
)

// github.com/sourcegraph/conc: a conc.WaitGroup per fork point for recursive
// work (unbounded goroutines with panic propagation), and a conc pool with
// WithMaxGoroutines(P) for flat batches of tasks. (A bounded conc pool
// deadlocks on nested forks like every blocking bounded pool, so the
// recursive workloads use the WaitGroup.) The blocking workload uses conc's
// context pool, unbounded, cancelled by the first error, which it returns.
func init() {
	register(&Strategy{
		Name:             "conc",
		GoroutinePerFork: true,
		Family:           "conc",
		Desc:             "conc.WaitGroup per fork point; conc pool.WithMaxGoroutines(P) for flat task batches; an unbounded context pool for tasks that block",
		TreeSum:          func(_ *Env, root *Node) int64 { return treeSumPar(concSpawner{}, root) },
		Fib:              func(_ *Env, n int) int64 { return fibPar(concSpawner{}, n) },
		Fold:             func(_ *Env, p *FoldProblem) uint64 { return foldPar(concSpawner{}, p, 0) },
		Sort:             func(_ *Env, a []int64) { sortPar(concSpawner{}, a) },
		Tasks: func(env *Env, ts *TaskSet) uint64 {
			return tasksPar(concPool{pool.New().WithMaxGoroutines(env.P)}, ts)
		},
		Spawn: func(_ *Env, sp *SpawnProblem) uint64 { return spawnPar(conc.NewWaitGroup(), sp) },
		Block: func(_ *Env, bp *BlockProblem) uint64 {
			p := pool.New().WithContext(context.Background()).WithCancelOnError().WithFirstError()
			return bp.run(func(t blockTask) { p.Go(t) }, p.Wait)
		},
	})
}

type concSpawner struct{}

func (concSpawner) scope() scope { return conc.NewWaitGroup() }

type concPool struct{ p *pool.Pool }

func (c concPool) Go(f func()) { c.p.Go(f) }
func (c concPool) Wait()       { c.p.Wait() }
