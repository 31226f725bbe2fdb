package main

import (
	"sync"

	"github.com/alitto/pond/v2"
)

// github.com/alitto/pond/v2: a pool of P workers with its default unbounded
// queue, a task group per fork point. Submission never blocks, but a parent
// task waiting on its group holds a worker while its children sit in the
// queue: with every worker so parked, nested forks deadlock. Flat batches and
// the spawn test (spawners do not wait for their tasks) are fine; tasks that
// wait for a later one deadlock the same way.
func init() {
	register(&Strategy{
		Name:          "pond",
		Family:        "pond",
		Desc:          "pond.NewPool(P) with its unbounded queue, a TaskGroup per fork point (deadlocks on nested forks and on tasks that block)",
		DeadlockProne: true,
		Bounded:       true,
		Open: func(p int) (any, func()) {
			pl := pond.NewPool(p)
			return &pondSpawner{pl}, pl.StopAndWait
		},
		TreeSum: func(env *Env, root *Node) int64 { return treeSumPar(pondOf(env), root) },
		Fib:     func(env *Env, n int) int64 { return fibPar(pondOf(env), n) },
		Fold:    func(env *Env, p *FoldProblem) uint64 { return foldPar(pondOf(env), p, 0) },
		Sort:    func(env *Env, a []int64) { sortPar(pondOf(env), a) },
		Tasks:   func(env *Env, ts *TaskSet) uint64 { return tasksPar(pondOf(env).scope(), ts) },
		Spawn: func(env *Env, sp *SpawnProblem) uint64 {
			return spawnPar(&pondWG{p: pondOf(env).p}, sp)
		},
		Block: func(env *Env, bp *BlockProblem) uint64 { return blockScope(pondOf(env).scope(), bp) },
	})
}

type pondSpawner struct{ p pond.Pool }

func pondOf(env *Env) *pondSpawner { return env.State.(*pondSpawner) }

func (s *pondSpawner) scope() scope { return pondGroup{s.p.NewGroup()} }

type pondGroup struct{ g pond.TaskGroup }

func (g pondGroup) Go(f func()) { g.g.Submit(f) }
func (g pondGroup) Wait()       { _ = g.g.Wait() }

// pondWG submits straight to the pool and counts with a WaitGroup, so that
// tasks may submit more tasks to the same scope while the caller waits.
type pondWG struct {
	p  pond.Pool
	wg sync.WaitGroup
}

func (s *pondWG) Go(f func()) {
	s.wg.Add(1)
	s.p.Go(func() {
		defer s.wg.Done()
		f()
	})
}

func (s *pondWG) Wait() { s.wg.Wait() }
