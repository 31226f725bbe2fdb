package main

import "slices"

// The sequential reference: plain recursion on the calling goroutine (also
// for the 10^6-deep chain: Go grows the goroutine stack to about 100 MB). It
// is also the seed runtime's "single-threaded" strategy. Every other strategy's
// result is checked against it, and every ratio in the table is to it.
func init() {
	register(&Strategy{
		Name:    "sequential",
		Family:  "baseline",
		Desc:    "plain recursion / a loop on the calling goroutine",
		TreeSum: func(_ *Env, root *Node) int64 { return treeSumSeq(root) },
		Fib:     func(_ *Env, n int) int64 { return fibSeq(n) },
		Fold:    func(_ *Env, p *FoldProblem) uint64 { return foldSeq(p, 0) },
		Sort:    func(_ *Env, a []int64) { slices.Sort(a) },
		Tasks:   func(_ *Env, ts *TaskSet) uint64 { return tasksSeq(ts) },
		Graph: func(_ *Env, g *GraphProblem) uint64 {
			return graphVia(g, tasksSeq)
		},
		Spawn: func(_ *Env, sp *SpawnProblem) uint64 { return spawnSeq(sp) },
		Chain: func(_ *Env, cp *ChainProblem) uint64 { return chainSeq(cp) },
		// The plain for loop over the slice; the range-over-func loop over
		// the iterator.
		LoopEach: func(_ *Env, lp *LoopProblem) { loopEachSeq(lp) },
		LoopSum:  func(_ *Env, lp *LoopProblem) uint64 { return loopSumSeq(lp) },
		LoopSeq:  func(_ *Env, lp *LoopProblem) uint64 { return loopSeqSeq(lp) },
	})
}
