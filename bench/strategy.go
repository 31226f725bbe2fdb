package main

import (
	"fmt"
	"sort"
)

// Env is what a strategy's workload function gets besides the problem.
type Env struct {
	// P is the parallelism of the run (the -p flag, GOMAXPROCS by default).
	P int
	// Cutoff is the fork depth limit of a strategy with SweepCutoff (the
	// harness sweeps it and keeps the fastest); 0 for the others.
	Cutoff int
	// State is what the strategy's Open returned for this workload (a pool,
	// say), or nil.
	State any
}

// Strategy is one way of running the workloads: the sequential reference, a
// peer a Go programmer would otherwise use, or forkjoin. Each workload
// function is optional; a strategy without one is shown as "–" for that
// workload. Every function must return the same result as the sequential
// strategy, which the harness checks before timing.
type Strategy struct {
	Name   string // short, unique: the row label and the -strategies key
	Family string // groups rows and picks the chart colour: see families
	Desc   string // one line for docs and -list

	// DeadlockProne marks a strategy known to deadlock on nested forks
	// (bounded pools whose workers block waiting for queued children). The
	// harness detects deadlocks of any strategy by a timeout; this flag only
	// tells the tests which outcome to accept.
	DeadlockProne bool
	// Bounded marks a pool of a fixed number of goroutines, each running
	// one task to its end: when all of them wait for a task that is still
	// queued (or not yet submitted, Submit blocking), nothing runs it. It
	// deadlocks on the blocking workload however it handles nested forks,
	// and the harness labels its deadlocks "bounded pool".
	Bounded bool
	// GoroutinePerFork marks a strategy that starts a goroutine for every
	// fork (so up to millions at once): it runs after the others on each
	// workload, on its own, because the runtime keeps a record of every
	// goroutine that was ever alive at once and each later garbage
	// collection scans them all.
	GoroutinePerFork bool
	// SweepCutoff asks the harness to try a few fork depth limits (Env.Cutoff)
	// on each workload before timing and to keep the fastest.
	SweepCutoff bool

	// Open, if set, is called once per workload before the strategy's first
	// run on it, outside any timing (to start a pool, say); its state is
	// handed to every run in Env.State and close is called after the last
	// run. A strategy that deadlocked is abandoned without close.
	Open func(p int) (state any, close func())

	TreeSum func(env *Env, root *Node) int64        // sum of all values
	Fib     func(env *Env, n int) int64             // fib(n), forking at every call
	Fold    func(env *Env, p *FoldProblem) uint64   // the fold of p from node 0
	Sort    func(env *Env, a []int64)               // sort a in place, ascending
	Tasks   func(env *Env, ts *TaskSet) uint64      // ts.Combine of every task's result
	Graph   func(env *Env, g *GraphProblem) uint64  // the graph's join result
	Spawn   func(env *Env, sp *SpawnProblem) uint64 // number of tasks that ran
	Chain   func(env *Env, cp *ChainProblem) uint64 // cp's combined messages
	Block   func(env *Env, bp *BlockProblem) uint64 // bp.run: N when the wait gave the last task's error

	LoopEach func(env *Env, lp *LoopProblem)        // lp.out[i] = f(lp.in[i]) for every i
	LoopSum  func(env *Env, lp *LoopProblem) uint64 // the sum of f(lp.in[i])
	LoopSeq  func(env *Env, lp *LoopProblem) uint64 // the sum of f(v) over loopSeq(lp.N)
}

// mayDeadlock reports whether s is known to deadlock on w: a strategy that
// deadlocks on nested forks on a workload whose forks nest, a bounded pool
// on the blocking workload. The harness detects a deadlock of any strategy
// by a timeout; this only tells the tests which outcome to accept.
func (s *Strategy) mayDeadlock(w *Workload) bool {
	return s.DeadlockProne && w.Nesting != NestFlat || s.Bounded && w.Nesting == NestBlock
}

// families orders the rows of the table and the bars of the chart.
var families = []string{"baseline", "forkjoin", "goroutines", "errgroup", "conc", "ants", "pond", "queue"}

func familyRank(f string) int {
	for i, g := range families {
		if g == f {
			return i
		}
	}
	return len(families)
}

// registry holds every strategy; register adds to it from init functions,
// one file per family (strategy_*.go).
var registry []*Strategy

func register(s *Strategy) {
	for _, t := range registry {
		if t.Name == s.Name {
			panic(fmt.Sprintf("bench: strategy %q registered twice", s.Name))
		}
	}
	registry = append(registry, s)
}

// strategies returns the registered strategies in display order: by family,
// then in registration order.
func strategies() []*Strategy {
	out := append([]*Strategy(nil), registry...)
	sort.SliceStable(out, func(i, j int) bool {
		return familyRank(out[i].Family) < familyRank(out[j].Family)
	})
	return out
}

// isForkjoin reports whether s is one of forkjoin's own strategies, which are
// left out of the "best alternative" a row is compared with.
func (s *Strategy) isForkjoin() bool { return s.Family == "forkjoin" }
