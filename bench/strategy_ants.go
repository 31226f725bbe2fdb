package main

import (
	"sync"
	"time"

	"github.com/panjf2000/ants/v2"
)

// github.com/panjf2000/ants/v2 with capacity P: in its default blocking mode
// (Submit waits for a free worker: nested forks deadlock, since the workers
// are the parents waiting for their children), and in non-blocking mode with
// the obvious fallback of running a task inline when Submit reports the pool
// full (which never waits for a queued child, so it survives nesting).
// Both deadlock on tasks that block: the P workers wait for the context
// while the task that would cancel it is not yet submitted (blocking
// Submit) or runs inline on the submitter, which then waits too.
func init() {
	register(&Strategy{
		Name:          "ants-cap",
		Family:        "ants",
		Desc:          "ants.NewPool(P), blocking Submit, a WaitGroup per fork point (deadlocks on nested forks and on tasks that block)",
		DeadlockProne: true,
		Bounded:       true,
		Open:          openAnts(false),
		TreeSum:       func(env *Env, root *Node) int64 { return treeSumPar(antsOf(env), root) },
		Fib:           func(env *Env, n int) int64 { return fibPar(antsOf(env), n) },
		Fold:          func(env *Env, p *FoldProblem) uint64 { return foldPar(antsOf(env), p, 0) },
		Sort:          func(env *Env, a []int64) { sortPar(antsOf(env), a) },
		Tasks:         func(env *Env, ts *TaskSet) uint64 { return tasksPar(antsOf(env).scope(), ts) },
		Spawn:         func(env *Env, sp *SpawnProblem) uint64 { return spawnPar(antsOf(env).scope(), sp) },
		Block:         func(env *Env, bp *BlockProblem) uint64 { return blockScope(antsOf(env).scope(), bp) },
	})
	register(&Strategy{
		Name:    "ants-nb",
		Family:  "ants",
		Desc:    "ants.NewPool(P, WithNonblocking(true)); a task the pool refuses runs inline (deadlocks on tasks that block)",
		Bounded: true,
		Open:    openAnts(true),
		TreeSum: func(env *Env, root *Node) int64 { return treeSumPar(antsOf(env), root) },
		Fib:     func(env *Env, n int) int64 { return fibPar(antsOf(env), n) },
		Fold:    func(env *Env, p *FoldProblem) uint64 { return foldPar(antsOf(env), p, 0) },
		Sort:    func(env *Env, a []int64) { sortPar(antsOf(env), a) },
		Tasks:   func(env *Env, ts *TaskSet) uint64 { return tasksPar(antsOf(env).scope(), ts) },
		Spawn:   func(env *Env, sp *SpawnProblem) uint64 { return spawnPar(antsOf(env).scope(), sp) },
		Block:   func(env *Env, bp *BlockProblem) uint64 { return blockScope(antsOf(env).scope(), bp) },
	})
}

type antsSpawner struct {
	pool        *ants.Pool
	nonblocking bool
}

func openAnts(nonblocking bool) func(p int) (any, func()) {
	return func(p int) (any, func()) {
		pl, err := ants.NewPool(p, ants.WithNonblocking(nonblocking))
		if err != nil {
			panic(err)
		}
		return &antsSpawner{pool: pl, nonblocking: nonblocking}, func() {
			_ = pl.ReleaseTimeout(5 * time.Second)
		}
	}
}

func antsOf(env *Env) *antsSpawner { return env.State.(*antsSpawner) }

func (a *antsSpawner) scope() scope { return &antsScope{a: a} }

type antsScope struct {
	a  *antsSpawner
	wg sync.WaitGroup
}

func (s *antsScope) Go(f func()) {
	s.wg.Add(1)
	err := s.a.pool.Submit(func() {
		defer s.wg.Done()
		f()
	})
	if err != nil {
		if !s.a.nonblocking {
			panic(err)
		}
		// The pool is full (ErrPoolOverload): run the task here.
		f()
		s.wg.Done()
	}
}

func (s *antsScope) Wait() { s.wg.Wait() }
