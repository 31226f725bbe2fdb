package main

import (
	"context"
	"sync"

	"golang.org/x/sync/errgroup"
)

// golang.org/x/sync/errgroup, without a limit (a goroutine per fork) and with
// SetLimit(P) shared by the whole computation, which is how one bounds the
// goroutines of a recursive computation with it. With the limit, a parent
// holds its slot while it waits for children that cannot get one: nested
// forks deadlock, and so do tasks that wait for a later one (the blocking
// workload: Go blocks at the limit, before the last task is submitted).
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
		Block:            func(_ *Env, bp *BlockProblem) uint64 { return blockErrgroup(bp, -1) },
	})
	register(&Strategy{
		Name:          "errgroup-limit",
		Family:        "errgroup",
		Desc:          "one errgroup.Group with SetLimit(P) shared by all forks, a WaitGroup per fork point (deadlocks on nested forks and on tasks that block)",
		DeadlockProne: true,
		Bounded:       true,
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
		Block: func(env *Env, bp *BlockProblem) uint64 { return blockErrgroup(bp, env.P) },
	})
}

// blockErrgroup runs the blocking workload on errgroup.WithContext, with a
// limit (SetLimit; -1: none).
func blockErrgroup(bp *BlockProblem, limit int) uint64 {
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(limit)
	return bp.run(func(t blockTask) { g.Go(func() error { return t(ctx) }) }, g.Wait)
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
