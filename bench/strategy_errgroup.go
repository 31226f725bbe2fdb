package main

import (
	"sync"

	"golang.org/x/sync/errgroup"
)

// golang.org/x/sync/errgroup, without a limit (a goroutine per fork) and with
// SetLimit(P) shared by the whole computation, which is how one bounds the
// goroutines of a recursive computation with it. With the limit, a parent
// holds its slot while it waits for children that cannot get one: nested
// forks deadlock.
func init() {
	register(&Strategy{
		Name:             "errgroup",
		GoroutinePerFork: true,
		Family:           "errgroup",
		Desc:             "an errgroup.Group per fork point, no limit",
		TreeSum:          func(_ *Env, root *Node) int64 { return treeSumPar(egSpawner{}, root) },
		Fib:              func(_ *Env, n int) int64 { return fibPar(egSpawner{}, n) },
		Fold:             func(_ *Env, p *FoldProblem) uint64 { return foldPar(egSpawner{}, p, 0) },
		Sort:             func(_ *Env, a []int64) { sortPar(egSpawner{}, a) },
		Tasks:            func(_ *Env, ts *TaskSet) uint64 { return tasksPar(egScope{new(errgroup.Group)}, ts) },
		Spawn:            func(_ *Env, sp *SpawnProblem) uint64 { return spawnPar(egScope{new(errgroup.Group)}, sp) },
	})
	register(&Strategy{
		Name:          "errgroup-limit",
		Family:        "errgroup",
		Desc:          "one errgroup.Group with SetLimit(P) shared by all forks, a WaitGroup per fork point (deadlocks on nested forks)",
		DeadlockProne: true,
		TreeSum: func(env *Env, root *Node) int64 {
			sp := newEGLimit(env.P)
			defer sp.g.Wait()
			return treeSumPar(sp, root)
		},
		Fib: func(env *Env, n int) int64 {
			sp := newEGLimit(env.P)
			defer sp.g.Wait()
			return fibPar(sp, n)
		},
		Fold: func(env *Env, p *FoldProblem) uint64 {
			sp := newEGLimit(env.P)
			defer sp.g.Wait()
			return foldPar(sp, p, 0)
		},
		Sort: func(env *Env, a []int64) {
			sp := newEGLimit(env.P)
			defer sp.g.Wait()
			sortPar(sp, a)
		},
		Tasks: func(env *Env, ts *TaskSet) uint64 {
			return tasksPar(egScope{newEGLimit(env.P).g}, ts)
		},
		Spawn: func(env *Env, sp *SpawnProblem) uint64 {
			return spawnPar(egScope{newEGLimit(env.P).g}, sp)
		},
	})
}

// egScope is an errgroup.Group used as a scope.
type egScope struct{ g *errgroup.Group }

func (s egScope) Go(f func()) {
	s.g.Go(func() error {
		f()
		return nil
	})
}

func (s egScope) Wait() { _ = s.g.Wait() }

type egSpawner struct{}

func (egSpawner) scope() scope { return egScope{new(errgroup.Group)} }

// egLimit shares one limited group among all fork points; each fork point
// waits for its own children with a WaitGroup.
type egLimit struct{ g *errgroup.Group }

func newEGLimit(p int) egLimit {
	g := new(errgroup.Group)
	g.SetLimit(p)
	return egLimit{g}
}

type egLimitScope struct {
	g  *errgroup.Group
	wg sync.WaitGroup
}

func (sp egLimit) scope() scope { return &egLimitScope{g: sp.g} }

func (s *egLimitScope) Go(f func()) {
	s.wg.Add(1)
	s.g.Go(func() error {
		defer s.wg.Done()
		f()
		return nil
	})
}

func (s *egLimitScope) Wait() { s.wg.Wait() }
