package main

import (
	"slices"
	"sync"
)

// The peers are written once, over a fork-join scope: fork some closures,
// then wait for all of them. Each peer supplies its scope (a goroutine and a
// WaitGroup, an errgroup, a conc.WaitGroup, a pool and a WaitGroup, ...), and
// the algorithms below are exactly what one would write by hand with it:
// fork the right-hand / later work, run the left-hand / first part inline,
// wait, combine.

// scope is one fork-join scope.
type scope interface {
	Go(f func()) // run f, possibly in parallel with the caller
	Wait()       // return once every f given to Go has returned
}

// spawner makes a new scope for every fork point.
type spawner interface {
	scope() scope
}

func treeSumPar(sp spawner, n *Node) int64 {
	if n.Left == nil {
		return n.Value
	}
	var r int64
	s := sp.scope()
	s.Go(func() { r = treeSumPar(sp, n.Right) })
	l := treeSumPar(sp, n.Left)
	s.Wait()
	return n.Value + l + r
}

func fibPar(sp spawner, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var b int64
	s := sp.scope()
	s.Go(func() { b = fibPar(sp, n-2) })
	a := fibPar(sp, n-1)
	s.Wait()
	return a + b
}

// foldPar forks every child but the first, folds the first inline, waits and
// accumulates the results in child order. A node with one child forks
// nothing, so a chain recurses on the caller's stack like the sequential
// fold.
func foldPar(sp spawner, p *FoldProblem, n int) uint64 {
	h := p.Init(n)
	first, count := p.Children(n)
	switch count {
	case 0:
		return p.Finalize(h)
	case 1:
		return p.Finalize(p.Accumulate(h, foldPar(sp, p, first)))
	}
	res := make([]uint64, count)
	s := sp.scope()
	for i := 1; i < count; i++ {
		s.Go(func() { res[i] = foldPar(sp, p, first+i) })
	}
	res[0] = foldPar(sp, p, first)
	s.Wait()
	for _, r := range res {
		h = p.Accumulate(h, r)
	}
	return p.Finalize(h)
}

func mergeSortPar(sp spawner, a, buf []int64) {
	if len(a) <= sortGrain {
		slices.Sort(a)
		return
	}
	mid := len(a) / 2
	s := sp.scope()
	s.Go(func() { mergeSortPar(sp, a[mid:], buf[mid:]) })
	mergeSortPar(sp, a[:mid], buf[:mid])
	s.Wait()
	mergeHalves(a, mid, buf)
}

// sortPar allocates the merge buffer and sorts a.
func sortPar(sp spawner, a []int64) {
	mergeSortPar(sp, a, make([]int64, len(a)))
}

// tasksPar submits every task of the batch to one scope and waits.
func tasksPar(s scope, ts *TaskSet) uint64 {
	res := make([]uint64, ts.Count)
	for i := range res {
		s.Go(func() { res[i] = ts.Run(i) })
	}
	s.Wait()
	return ts.Combine(res)
}

// spawnPar runs zap's spawn test on one scope: the spawners are submitted to
// it, and each spawner submits its empty tasks to the same scope (nested
// submission: the spawner does not wait for its tasks, the caller waits for
// everything).
func spawnPar(s scope, sp *SpawnProblem) uint64 {
	cs, fs := sp.spawnCounters()
	for i := 0; i < sp.Spawners; i++ {
		f := fs[i]
		s.Go(func() {
			for t := 0; t < sp.Tasks; t++ {
				s.Go(f)
			}
		})
	}
	s.Wait()
	return spawnTotal(cs)
}

// goScope is a goroutine per fork and a sync.WaitGroup.
type goScope struct{ wg sync.WaitGroup }

func (s *goScope) Go(f func()) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

func (s *goScope) Wait() { s.wg.Wait() }

type goSpawner struct{}

func (goSpawner) scope() scope { return new(goScope) }
