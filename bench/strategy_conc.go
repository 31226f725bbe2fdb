package main

import (
	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/pool"
)

// github.com/sourcegraph/conc: a conc.WaitGroup per fork point for recursive
// work (unbounded goroutines with panic propagation), and a conc pool with
// WithMaxGoroutines(P) for flat batches of tasks. (A bounded conc pool
// deadlocks on nested forks like every blocking bounded pool, so the
// recursive workloads use the WaitGroup.)
func init() {
	register(&Strategy{
		Name:             "conc",
		GoroutinePerFork: true,
		Family:           "conc",
		Desc:             "conc.WaitGroup per fork point; conc pool.WithMaxGoroutines(P) for flat task batches",
		TreeSum:          func(_ *Env, root *Node) int64 { return treeSumPar(concSpawner{}, root) },
		Fib:              func(_ *Env, n int) int64 { return fibPar(concSpawner{}, n) },
		Fold:             func(_ *Env, p *FoldProblem) uint64 { return foldPar(concSpawner{}, p, 0) },
		Sort:             func(_ *Env, a []int64) { sortPar(concSpawner{}, a) },
		Tasks: func(env *Env, ts *TaskSet) uint64 {
			return tasksPar(concPool{pool.New().WithMaxGoroutines(env.P)}, ts)
		},
		Spawn: func(_ *Env, sp *SpawnProblem) uint64 { return spawnPar(conc.NewWaitGroup(), sp) },
	})
}

type concSpawner struct{}

func (concSpawner) scope() scope { return conc.NewWaitGroup() }

type concPool struct{ p *pool.Pool }

func (c concPool) Go(f func()) { c.p.Go(f) }
func (c concPool) Wait()       { c.p.Wait() }
