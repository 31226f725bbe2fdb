package main

// forkjoin's own strategies. Each Open starts a pool.Pool of parallelism
// env.P for the workload (outside the timing) and closes it afterwards.
//
//   - forkjoin-fork: the typed fork (forkjoin.Fork), allocation-free:
//     Fork.Start and Future.Join for tree-sum (a pointer argument: both
//     inline into the recursion), Fork.Join for fib and sort; batches of
//     tasks with forkjoin.For.
//   - forkjoin-join: forkjoin.Join with closures (allocates per fork).
//   - forkjoin-fold: fold.Run over the implicit tree of a FoldProblem.
//   - forkjoin-fold-nodes: fold.Run over plain-recursion's tree of pointer
//     nodes, its children given by tree.FromSlice, as a user with such a
//     tree writes it.
//   - forkjoin-task: the task runtime: a Scope's spawned tasks for batches
//     and the spawn test, a forkjoin.Graph for the dependency graph.
//   - forkjoin-task-slot: forkjoin-task on a pool with the LIFO slot on.
//   - forkjoin-plan: the dependency graph as a forkjoin.Graph built once
//     per problem and run for every run.

import (
	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

func openPool(p int) (any, func()) {
	pl := pool.New(p)
	return pl, pl.Close
}

func poolOf(env *Env) *pool.Pool { return env.State.(*pool.Pool) }

var (
	fjTreeSum *forkjoin.Fork[*Node, int64]
	fjFib     *forkjoin.Fork[int, int64]
	fjSort    *forkjoin.Fork[sortArg, struct{}]
)

// fjSum is tree-sum with a Future per node: the right child is forked, the
// left one is a direct call. Like treeSumSeq it does not descend into
// missing children, so both make one call per node (forking the nil
// children of the leaves too would double the calls).
func fjSum(f *forkjoin.Fork[*Node, int64], w *forkjoin.Worker, n *Node) int64 {
	if n.Right == nil {
		if n.Left == nil {
			return n.Value
		}
		return n.Value + fjSum(f, w, n.Left)
	}
	right := f.Start(w, n.Right)
	var left int64
	if n.Left != nil {
		left = fjSum(f, w, n.Left)
	}
	return n.Value + left + right.Join(w)
}

type sortArg struct{ a, buf []int64 }

// sortLeaf is the size below which merge sort sorts sequentially.
const sortLeaf = 2048

func init() {
	fjTreeSum = forkjoin.NewFork(fjSum)
	fjFib = forkjoin.NewFork(func(f *forkjoin.Fork[int, int64], w *forkjoin.Worker, n int) int64 {
		if n < 2 {
			return int64(n)
		}
		a, b := f.Join(w, n-1, n-2)
		return a + b
	})
	fjSort = forkjoin.NewFork(func(f *forkjoin.Fork[sortArg, struct{}], w *forkjoin.Worker, s sortArg) struct{} {
		if len(s.a) <= sortLeaf {
			mergeSortSeq(s.a, s.buf)
			return struct{}{}
		}
		mid := len(s.a) / 2
		f.Join(w, sortArg{s.a[:mid], s.buf[:mid]}, sortArg{s.a[mid:], s.buf[mid:]})
		mergeHalves(s.a, mid, s.buf)
		return struct{}{}
	})

	register(&Strategy{
		Name:   "forkjoin-fork",
		Family: "forkjoin",
		Desc:   "forkjoin's typed fork (Start/Future.Join, Fork.Join): no allocation per fork; For for task batches",
		Open:   openPool,
		TreeSum: func(env *Env, root *Node) int64 {
			if root == nil {
				return 0 // (fjSum, like treeSumSeq, takes a node)
			}
			var s int64
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { s = fjTreeSum.Call(w, root) })
			return s
		},
		Fib: func(env *Env, n int) int64 {
			var s int64
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { s = fjFib.Call(w, n) })
			return s
		},
		Sort: func(env *Env, a []int64) {
			buf := make([]int64, len(a))
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { fjSort.Call(w, sortArg{a, buf}) })
		},
		Tasks: func(env *Env, ts *TaskSet) uint64 { return fjTasks(poolOf(env), ts) },
		Graph: func(env *Env, g *GraphProblem) uint64 {
			return graphVia(g, func(ts *TaskSet) uint64 { return fjTasks(poolOf(env), ts) })
		},
	})

	register(&Strategy{
		Name:   "forkjoin-join",
		Family: "forkjoin",
		Desc:   "forkjoin.Join with two closures per fork (allocates when they capture)",
		Open:   openPool,
		TreeSum: func(env *Env, root *Node) int64 {
			var s int64
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { s = joinTreeSum(w, root) })
			return s
		},
		Fib: func(env *Env, n int) int64 {
			var s int64
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) { s = joinFib(w, n) })
			return s
		},
	})

	register(&Strategy{
		Name:   "forkjoin-fold",
		Family: "forkjoin",
		Desc:   "fold.Run: init/accumulate/finalize over a children function, children handed out on demand",
		Open:   openPool,
		Fold: func(env *Env, p *FoldProblem) uint64 {
			f := fold.New(p.Init,
				func(h *uint64, c uint64) { *h = p.Accumulate(*h, c) },
				func(h *uint64) uint64 { return p.Finalize(*h) })
			g := tree.FromFunc(func(n int, yield func(int) bool) {
				first, count := p.Children(n)
				for c := first; c < first+count; c++ {
					if !yield(c) {
						return
					}
				}
			})
			return fold.Run(poolOf(env), f, g, 0)
		},
	})

	register(&Strategy{
		Name:   "forkjoin-fold-nodes",
		Family: "forkjoin",
		Desc:   "fold.Run over plain-recursion's pointer nodes, children by tree.FromSlice (read in place)",
		Open:   openPool,
		Fold: func(env *Env, p *FoldProblem) uint64 {
			root := plainTreeOf(p)
			f := fold.New(func(n *plainNode) uint64 { return p.Init(n.id) },
				func(h *uint64, c uint64) { *h = p.Accumulate(*h, c) },
				func(h *uint64) uint64 { return p.Finalize(*h) })
			g := tree.FromSlice(func(n *plainNode) []*plainNode {
				if p.Work.Children > 0 {
					spin(uint64(n.id), p.Work.Children)
				}
				return n.kids
			})
			return fold.Run(poolOf(env), f, g, root)
		},
	})
}

func init() {
	task := &Strategy{
		Name:   "forkjoin-task",
		Family: "forkjoin",
		Desc:   "forkjoin's task runtime: Scope/Spawner tasks, forkjoin.Graph for dependencies",
		Open:   openPool,
		Tasks: func(env *Env, ts *TaskSet) uint64 {
			res := make([]uint64, ts.Count)
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for i := 0; i < ts.Count; i++ {
						i := i
						s.Spawn(w, func(*forkjoin.Worker) { res[i] = ts.Run(i) })
					}
				})
			})
			return ts.Combine(res)
		},
		Graph: func(env *Env, gp *GraphProblem) uint64 {
			g, join := buildGraph(gp) // built for every run, as a one-off graph is
			if err := g.Run(poolOf(env)); err != nil {
				panic(err)
			}
			return join.Value()
		},
		Spawn: func(env *Env, sp *SpawnProblem) uint64 {
			cs, fs := sp.spawnCounters()
			forkjoin.Run(poolOf(env), func(w *forkjoin.Worker) {
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					for i := 0; i < sp.Spawners; i++ {
						f := fs[i]
						s.Spawn(w, func(w *forkjoin.Worker) {
							body := func(*forkjoin.Worker) { f() }
							for t := 0; t < sp.Tasks; t++ {
								s.Spawn(w, body)
							}
						})
					}
				})
			})
			return spawnTotal(cs)
		},
		Chain: chainFJ,
	}
	register(task)
	// The same code on a pool with the LIFO slot on, to measure what the
	// slot does in the same run.
	slot := *task
	slot.Name = "forkjoin-task-slot"
	slot.Desc = "forkjoin-task on a pool with the LIFO slot on (pool.WithLIFOSlot)"
	slot.Open = func(p int) (any, func()) {
		pl := pool.New(p, pool.WithLIFOSlot())
		return pl, pl.Close
	}
	register(&slot)
}

func joinTreeSum(w *forkjoin.Worker, n *Node) int64 {
	if n == nil {
		return 0
	}
	var l, r int64
	forkjoin.Join(w,
		func(w *forkjoin.Worker) { l = joinTreeSum(w, n.Left) },
		func(w *forkjoin.Worker) { r = joinTreeSum(w, n.Right) })
	return n.Value + l + r
}

func joinFib(w *forkjoin.Worker, n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var a, b int64
	forkjoin.Join(w,
		func(w *forkjoin.Worker) { a = joinFib(w, n-1) },
		func(w *forkjoin.Worker) { b = joinFib(w, n-2) })
	return a + b
}

// fjTasks runs a batch with forkjoin.For, one task per index, and combines
// the results in task order.
func fjTasks(p *pool.Pool, ts *TaskSet) uint64 {
	res := make([]uint64, ts.Count)
	forkjoin.Run(p, func(w *forkjoin.Worker) {
		forkjoin.For(w, ts.Count, 1, func(_ *forkjoin.Worker, lo, hi int) {
			for i := lo; i < hi; i++ {
				res[i] = ts.Run(i)
			}
		})
	})
	return ts.Combine(res)
}

// buildGraph lays out the seed runtime's dependency graph as a
// forkjoin.Graph and returns it with its join node.
func buildGraph(gp *GraphProblem) (*forkjoin.Graph, *forkjoin.GraphNode[uint64]) {
	g := forkjoin.NewGraph()
	root := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) { return gp.Root(), nil }, nil)
	fan := gp.FanOutTasks(0) // only for Count and Iters; the seed comes from root
	mids := make([]forkjoin.Dep, fan.Count)
	midNodes := make([]*forkjoin.GraphNode[uint64], fan.Count)
	rootDep := []forkjoin.Dep{root}
	for i := range mids {
		midNodes[i] = forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
			return gp.FanOutTasks(root.Value()).Run(i), nil
		}, rootDep)
		mids[i] = midNodes[i]
	}
	join := forkjoin.AddNode(g, func(*forkjoin.Worker) (uint64, error) {
		ts := gp.FanOutTasks(root.Value())
		res := make([]uint64, len(midNodes))
		for i, m := range midNodes {
			res[i] = m.Value()
		}
		return gp.Join(ts.Combine(res)), nil
	}, mids)
	return g, join
}

// planState is forkjoin-plan's state for one workload: the pool and the
// graphs built so far, one per problem.
type planState struct {
	pool  *pool.Pool
	plans map[*GraphProblem]plannedGraph
}

type plannedGraph struct {
	g    *forkjoin.Graph
	join *forkjoin.GraphNode[uint64]
}

func init() {
	register(&Strategy{
		Name:   "forkjoin-plan",
		Family: "forkjoin",
		Desc:   "forkjoin.Graph built once per problem and run again for every run (a plan executed repeatedly); the build is not timed",
		Open: func(p int) (any, func()) {
			pl := pool.New(p)
			return &planState{pool: pl, plans: map[*GraphProblem]plannedGraph{}}, pl.Close
		},
		Graph: func(env *Env, gp *GraphProblem) uint64 {
			st := env.State.(*planState)
			pg, ok := st.plans[gp]
			if !ok {
				pg.g, pg.join = buildGraph(gp)
				st.plans[gp] = pg
			}
			if err := pg.g.Run(st.pool); err != nil {
				panic(err)
			}
			return pg.join.Value()
		},
	})
}
