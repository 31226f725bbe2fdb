package main

import "sync"

// Plain goroutines: one per fork with a sync.WaitGroup (the seed runtime's
// "thread per task"), and the hand-tuned version that forks only above a
// depth cut-off and runs sequential code below it.
func init() {
	register(&Strategy{
		Name:             "go-wg",
		GoroutinePerFork: true,
		Family:           "goroutines",
		Desc:             "a goroutine per fork joined with sync.WaitGroup (and a context cancelled with the first error for tasks that block)",
		TreeSum:          func(_ *Env, root *Node) int64 { return treeSumPar(goSpawner{}, root) },
		Fib:              func(_ *Env, n int) int64 { return fibPar(goSpawner{}, n) },
		Fold:             func(_ *Env, p *FoldProblem) uint64 { return foldPar(goSpawner{}, p, 0) },
		Sort:             func(_ *Env, a []int64) { sortPar(goSpawner{}, a) },
		Tasks:            func(_ *Env, ts *TaskSet) uint64 { return tasksPar(new(goScope), ts) },
		Spawn:            func(_ *Env, sp *SpawnProblem) uint64 { return spawnPar(new(goScope), sp) },
		Block:            func(_ *Env, bp *BlockProblem) uint64 { return blockScope(new(goScope), bp) },
	})
	register(&Strategy{
		Name:             "go-cutoff",
		GoroutinePerFork: true,
		Family:           "goroutines",
		Desc:             "goroutines + sync.WaitGroup above a depth cut-off, sequential code below it; the best cut-off of a sweep is kept",
		SweepCutoff:      true,
		TreeSum:          func(env *Env, root *Node) int64 { return treeSumCut(root, env.Cutoff) },
		Fib:              func(env *Env, n int) int64 { return fibCut(n, env.Cutoff) },
		Fold:             func(env *Env, p *FoldProblem) uint64 { return foldCut(p, 0, env.Cutoff) },
		Sort: func(env *Env, a []int64) {
			mergeSortCut(a, make([]int64, len(a)), env.Cutoff)
		},
	})
	register(&Strategy{
		Name:     "go-chunks",
		Family:   "goroutines",
		Desc:     "loops: P goroutines, one contiguous chunk of the slice each; for an iter.Seq, batches of 1024 values on a channel to P goroutines",
		LoopEach: loopEachChunks,
		LoopSum:  loopSumChunks,
		LoopSeq:  loopSeqChan,
	})
}

func treeSumCut(n *Node, cut int) int64 {
	if cut <= 0 || n.Left == nil {
		return treeSumSeq(n)
	}
	var r int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r = treeSumCut(n.Right, cut-1)
	}()
	l := treeSumCut(n.Left, cut-1)
	wg.Wait()
	return n.Value + l + r
}

func fibCut(n, cut int) int64 {
	if cut <= 0 || n < 2 {
		return fibSeq(n)
	}
	var b int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		b = fibCut(n-2, cut-1)
	}()
	a := fibCut(n-1, cut-1)
	wg.Wait()
	return a + b
}

func foldCut(p *FoldProblem, n, cut int) uint64 {
	if cut <= 0 {
		return foldSeq(p, n)
	}
	h := p.Init(n)
	first, count := p.Children(n)
	switch count {
	case 0:
		return p.Finalize(h)
	case 1:
		return p.Finalize(p.Accumulate(h, foldCut(p, first, cut-1)))
	}
	res := make([]uint64, count)
	var wg sync.WaitGroup
	wg.Add(count - 1)
	for i := 1; i < count; i++ {
		go func() {
			defer wg.Done()
			res[i] = foldCut(p, first+i, cut-1)
		}()
	}
	res[0] = foldCut(p, first, cut-1)
	wg.Wait()
	for _, r := range res {
		h = p.Accumulate(h, r)
	}
	return p.Finalize(h)
}

func mergeSortCut(a, buf []int64, cut int) {
	if cut <= 0 || len(a) <= sortGrain {
		mergeSortSeq(a, buf)
		return
	}
	mid := len(a) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		mergeSortCut(a[mid:], buf[mid:], cut-1)
	}()
	mergeSortCut(a[:mid], buf[:mid], cut-1)
	wg.Wait()
	mergeHalves(a, mid, buf)
}
