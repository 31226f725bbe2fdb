package main

import "sync/atomic"

// TaskSet is a flat batch of independent tasks (the task suite of the seed
// runtime): task i spins Base iterations, or Heavy iterations when
// HeavyEvery > 0 and i%HeavyEvery == 0, from a seed derived from Seed and i.
// The results are combined in task order.
type TaskSet struct {
	Count      int
	Base       int
	Heavy      int
	HeavyEvery int
	Seed       uint64
}

// Iters is the busy work of task i.
func (ts *TaskSet) Iters(i int) int {
	if ts.HeavyEvery > 0 && i%ts.HeavyEvery == 0 {
		return ts.Heavy
	}
	return ts.Base
}

// Run runs task i and returns its result.
func (ts *TaskSet) Run(i int) uint64 {
	return spin(mix64(ts.Seed+uint64(i)), ts.Iters(i))
}

// Combine folds the task results, in task order, into the batch's result.
func (ts *TaskSet) Combine(results []uint64) uint64 {
	h := ts.Seed
	for _, r := range results {
		h = combine(h, r)
	}
	return h
}

// Iterations is the total busy work of the batch.
func (ts *TaskSet) Iterations() float64 {
	var s float64
	for i := 0; i < ts.Count; i++ {
		s += float64(ts.Iters(i))
	}
	return s
}

// tasksSeq runs the batch on the calling goroutine.
func tasksSeq(ts *TaskSet) uint64 {
	res := make([]uint64, ts.Count)
	for i := range res {
		res[i] = ts.Run(i)
	}
	return ts.Combine(res)
}

// GraphProblem is the seed runtime's dependency graph: one root task, FanOut
// tasks that each depend on the root's result, and one join task that depends
// on all of them (in order). Every task spins Iters iterations.
type GraphProblem struct {
	FanOut int
	Iters  int
}

// Root runs the root task.
func (g *GraphProblem) Root() uint64 { return spin(mix64(0x600d), g.Iters) }

// FanOutTasks is the middle layer, seeded by the root's result.
func (g *GraphProblem) FanOutTasks(root uint64) *TaskSet {
	return &TaskSet{Count: g.FanOut, Base: g.Iters, Seed: root}
}

// Join runs the join task on the combined results of the middle layer.
func (g *GraphProblem) Join(combined uint64) uint64 { return spin(combined, g.Iters) }

// graphVia runs the graph with a strategy's flat-batch function: the root and
// the join on the calling goroutine, the fan-out as one batch.
func graphVia(g *GraphProblem, tasks func(*TaskSet) uint64) uint64 {
	return g.Join(tasks(g.FanOutTasks(g.Root())))
}

// SpawnProblem is zap's spawn test: Spawners tasks, each of which spawns
// Tasks empty tasks; the run ends when all of them have run. The result is
// the number of tasks that ran (Spawners*Tasks when none is lost).
type SpawnProblem struct {
	Spawners, Tasks int
}

// spawnCounter counts the tasks of one spawner, padded to its own cache
// lines so that two spawners do not share one.
type spawnCounter struct {
	n atomic.Uint64
	_ [120]byte
}

// spawnCounters returns one counter per spawner and the empty task of each:
// the task only counts itself.
func (sp *SpawnProblem) spawnCounters() ([]spawnCounter, []func()) {
	cs := make([]spawnCounter, sp.Spawners)
	fs := make([]func(), sp.Spawners)
	for i := range cs {
		c := &cs[i]
		fs[i] = func() { c.n.Add(1) }
	}
	return cs, fs
}

// total sums the counters.
func spawnTotal(cs []spawnCounter) uint64 {
	var s uint64
	for i := range cs {
		s += cs[i].n.Load()
	}
	return s
}

// spawnSeq runs every empty task on the calling goroutine.
func spawnSeq(sp *SpawnProblem) uint64 {
	cs, fs := sp.spawnCounters()
	for s := 0; s < sp.Spawners; s++ {
		for t := 0; t < sp.Tasks; t++ {
			fs[s]()
		}
	}
	return spawnTotal(cs)
}
