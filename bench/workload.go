package main

import (
	"fmt"
	"math"
	"path"
	"strings"
)

// Kind is which Strategy function a workload calls.
type Kind int

const (
	KindTreeSum Kind = iota
	KindFib
	KindFold
	KindSort
	KindTasks
	KindGraph
	KindSpawn
	KindChain
	KindLoopEach
	KindLoopSum
	KindLoopSeq
	KindBlock
)

// Nesting classes: how a workload's forks nest, which decides whether a
// bounded pool can deadlock on it. A strategy that deadlocked on one workload
// of a class is not tried again on the others of that class.
const (
	NestFlat     = ""          // only the caller forks
	NestForkJoin = "fork-join" // forked work forks again and waits for its children
	NestSpawn    = "spawn"     // forked work submits more work (but does not wait for it)
	NestBlock    = "blocking"  // tasks wait for a task submitted after them
)

// nestingWhat names a nesting class in a note: "deadlocked on fork-join
// forks in tree sum ...".
func nestingWhat(nesting string) string {
	if nesting == NestBlock {
		return "blocking tasks"
	}
	return nesting + " forks"
}

// Workload is one row group of the table: a problem of a given size.
type Workload struct {
	ID       string // the -workloads key, e.g. "tree-sum", "matrix/hash/bf8/n1e4"
	Label    string // the table label, with the size, e.g. "tree-sum 2^20-1"
	Kind     Kind
	UnitName string // the per-unit column's unit ("node", "call", ...); "" when a run is the unit
	Nesting  string

	// SeqIters, when > 0, is the busy work of one sequential run in LCG
	// iterations: with the machine's time per iteration it estimates the
	// sequential time before anything is built, so that an instance far over
	// the time budget is skipped whole.
	SeqIters float64

	// WarmEach runs the workload once, untimed, before every timed sample
	// (deep: a recursion 10^6 deep first has to grow the goroutine stack
	// again if a garbage collection shrank it while the goroutine was idle;
	// the timed run then measures the fold, not the stack growth).
	WarmEach bool

	build func() *Instance // the problem at its full size
	probe func() *Instance // the same problem, small: deadlock probe and time estimate
}

// Instance is a built problem.
type Instance struct {
	Units       float64 // nodes, calls, elements or tasks of one run
	Depth       int     // fork levels (the range of a depth cut-off sweep)
	Expected    uint64  // the right result, computed independently of every strategy
	HasExpected bool

	root  *Node
	fibN  int
	fold  *FoldProblem
	input []int64 // sort input; every run sorts a fresh copy
	tasks *TaskSet
	graph *GraphProblem
	spawn *SpawnProblem
	chain *ChainProblem
	loop  *LoopProblem
	block *BlockProblem
}

// supports reports whether s implements the instance's workload.
func (w *Workload) supports(s *Strategy) bool {
	switch w.Kind {
	case KindTreeSum:
		return s.TreeSum != nil
	case KindFib:
		return s.Fib != nil
	case KindFold:
		return s.Fold != nil
	case KindSort:
		return s.Sort != nil
	case KindTasks:
		return s.Tasks != nil
	case KindGraph:
		return s.Graph != nil || s.Tasks != nil
	case KindSpawn:
		return s.Spawn != nil
	case KindChain:
		return s.Chain != nil
	case KindLoopEach:
		return s.LoopEach != nil
	case KindLoopSum:
		return s.LoopSum != nil
	case KindLoopSeq:
		return s.LoopSeq != nil
	case KindBlock:
		return s.Block != nil
	}
	return false
}

// exec runs the workload once with s. For sort, scratch holds the copy to
// sort (prepared by prepare) and the result is computed by finish, outside
// the timing.
func (in *Instance) exec(kind Kind, s *Strategy, env *Env, scratch []int64) uint64 {
	switch kind {
	case KindTreeSum:
		return uint64(s.TreeSum(env, in.root))
	case KindFib:
		return uint64(s.Fib(env, in.fibN))
	case KindFold:
		return s.Fold(env, in.fold)
	case KindSort:
		s.Sort(env, scratch)
		return 0
	case KindTasks:
		return s.Tasks(env, in.tasks)
	case KindGraph:
		if s.Graph != nil {
			return s.Graph(env, in.graph)
		}
		return graphVia(in.graph, func(ts *TaskSet) uint64 { return s.Tasks(env, ts) })
	case KindSpawn:
		return s.Spawn(env, in.spawn)
	case KindChain:
		return s.Chain(env, in.chain)
	case KindLoopEach:
		s.LoopEach(env, in.loop)
		return 0
	case KindLoopSum:
		return s.LoopSum(env, in.loop)
	case KindLoopSeq:
		return s.LoopSeq(env, in.loop)
	case KindBlock:
		return s.Block(env, in.block)
	}
	panic("bench: unknown workload kind")
}

// needsScratch reports whether every run needs fresh input (sort) or a
// cleared output (the each-loop), and its result is computed by finish.
func (w *Workload) needsScratch() bool { return w.Kind == KindSort || w.Kind == KindLoopEach }

func (in *Instance) prepare(scratch []int64) {
	if in.loop != nil {
		clear(in.loop.out)
		return
	}
	copy(scratch, in.input)
}

func (in *Instance) finish(kind Kind, scratch []int64, r uint64) uint64 {
	switch kind {
	case KindSort:
		return sortResult(scratch)
	case KindLoopEach:
		return in.loop.outHash()
	}
	return r
}

// ---- the workloads ----

func treeSumWorkload(levels int) *Workload {
	mk := func(l int) func() *Instance {
		return func() *Instance {
			root, sum := BuildTree(l)
			return &Instance{Units: float64(int(1)<<l - 1), Depth: l - 1,
				Expected: uint64(sum), HasExpected: true, root: root}
		}
	}
	return &Workload{
		ID: "tree-sum", Label: fmt.Sprintf("tree sum, perfect binary tree of 2^%d-1 nodes, a fork per node", levels),
		Kind: KindTreeSum, UnitName: "node", Nesting: NestForkJoin,
		build: mk(levels), probe: mk(min(levels, 12)),
	}
}

func fibWorkload(n int) *Workload {
	mk := func(n int) func() *Instance {
		return func() *Instance {
			return &Instance{Units: fibCalls(n), Depth: n - 1,
				Expected: uint64(fibIter(n)), HasExpected: true, fibN: n}
		}
	}
	return &Workload{
		ID: "fib", Label: fmt.Sprintf("naive fib(%d), a fork per call", n),
		Kind: KindFib, UnitName: "call", Nesting: NestForkJoin,
		build: mk(n), probe: mk(min(n, 16)),
	}
}

// foldInstance builds a fold instance; the expected result comes from the
// explicit-stack fold, which shares no code with any strategy's fold.
func foldInstance(p *FoldProblem) *Instance {
	return &Instance{Units: float64(p.N), Depth: p.Height() - 1,
		Expected: foldIter(p), HasExpected: true, fold: p}
}

func foldWorkload(id, label string, p FoldProblem, probeN int) *Workload {
	nest := NestFlat
	if p.Nested() {
		nest = NestForkJoin
	}
	return &Workload{
		ID: id, Label: label, Kind: KindFold, UnitName: "node", Nesting: nest,
		SeqIters: p.Iterations(),
		build: func() *Instance {
			q := p
			return foldInstance(&q)
		},
		probe: func() *Instance {
			q := p
			q.N = min(q.N, probeN)
			return foldInstance(&q)
		},
	}
}

// sizeName writes 200, 1e4, 1e6 as "200", "10^4", "10^6".
func sizeName(n int) (id, label string) {
	e := math.Log10(float64(n))
	if n >= 1000 && e == math.Trunc(e) {
		return fmt.Sprintf("1e%d", int(e)), fmt.Sprintf("10^%d", int(e))
	}
	return fmt.Sprint(n), fmt.Sprint(n)
}

func matrixWorkload(work string, bf, n int) *Workload {
	nid, nlabel := sizeName(n)
	p := FoldProblem{Shape: ShapeBalanced, N: n, BF: bf, Work: matrixWork(work)}
	return foldWorkload(
		fmt.Sprintf("matrix/%s/bf%d/n%s", work, bf, nid),
		fmt.Sprintf("%s, branching %d, %s nodes", matrixLabel(work), bf, nlabel),
		p, 200)
}

func wideWorkload(children int) *Workload {
	_, l := sizeName(children)
	return foldWorkload("wide", "wide tree, one node with "+l+" children",
		FoldProblem{Shape: ShapeWide, N: children + 1}, 1001)
}

func deepWorkload(n int) *Workload {
	_, l := sizeName(n)
	w := foldWorkload("deep", "deep tree, a chain of "+l+" nodes",
		FoldProblem{Shape: ShapeChain, N: n}, 1000)
	w.WarmEach = true
	return w
}

func tinyWorkload(n int) *Workload {
	w := foldWorkload(fmt.Sprintf("tiny/%d", n), fmt.Sprintf("one small run, %d-node tree", n),
		FoldProblem{Shape: ShapeBalanced, N: n, BF: 2}, n)
	w.UnitName = ""
	return w
}

func sortWorkload(n int) *Workload {
	_, l := sizeName(n)
	mk := func(n int) func() *Instance {
		return func() *Instance {
			in := makeSortInput(n)
			return &Instance{Units: float64(n), Depth: sortDepth(n),
				Expected: multisetHash(in), HasExpected: true, input: in}
		}
	}
	nest := NestFlat
	if sortDepth(n) >= 2 {
		nest = NestForkJoin
	}
	return &Workload{
		ID: "sort", Label: "merge sort of " + l + " int64",
		Kind: KindSort, UnitName: "elem", Nesting: nest,
		build: mk(n), probe: mk(min(n, 8*sortGrain)),
	}
}

func tasksWorkload(id, label string, ts TaskSet, probeCount int) *Workload {
	mk := func(count int) func() *Instance {
		return func() *Instance {
			t := ts
			t.Count = count
			return &Instance{Units: float64(count), tasks: &t}
		}
	}
	return &Workload{
		ID: "tasks/" + id, Label: label, Kind: KindTasks, UnitName: "task", Nesting: NestFlat,
		SeqIters: ts.Iterations(),
		build:    mk(ts.Count), probe: mk(min(ts.Count, probeCount)),
	}
}

func graphWorkload(fanOut, iters int) *Workload {
	mk := func(f int) func() *Instance {
		return func() *Instance {
			return &Instance{Units: float64(f + 2), graph: &GraphProblem{FanOut: f, Iters: iters}}
		}
	}
	return &Workload{
		ID: "tasks/dependency_graph", Label: fmt.Sprintf("dependency graph of tasks 1 → %d → 1", fanOut),
		Kind: KindGraph, UnitName: "task", Nesting: NestFlat,
		SeqIters: float64((fanOut + 2) * iters),
		build:    mk(fanOut), probe: mk(min(fanOut, 20)),
	}
}

func spawnWorkload(spawners, tasks int) *Workload {
	mk := func(s, t int) func() *Instance {
		return func() *Instance {
			return &Instance{Units: float64(s * t), Expected: uint64(s * t), HasExpected: true,
				spawn: &SpawnProblem{Spawners: s, Tasks: t}}
		}
	}
	return &Workload{
		ID: "spawn", Label: fmt.Sprintf("%d spawners × %s empty tasks", spawners, countName(tasks)),
		Kind: KindSpawn, UnitName: "task", Nesting: NestSpawn,
		build: mk(spawners, tasks), probe: mk(spawners, min(tasks, 1000)),
	}
}

// countName writes 100000 as "100k" and 2000000 as "2M".
func countName(n int) string {
	switch {
	case n >= 1e6 && n%1e6 == 0:
		return fmt.Sprintf("%dM", n/1e6)
	case n >= 1e3 && n%1e3 == 0:
		return fmt.Sprintf("%dk", n/1e3)
	}
	return fmt.Sprint(n)
}

// matchAny reports whether name matches one of the patterns: a pattern with
// glob characters (*?[) is a path.Match glob, any other is a substring. No
// patterns match everything.
func matchAny(name string, patterns []string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		if strings.ContainsAny(p, "*?[") {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		} else if strings.Contains(name, p) {
			return true
		}
	}
	return false
}
