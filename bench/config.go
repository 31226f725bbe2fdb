package main

import (
	"fmt"
	"time"
)

// Config is one run of the benchmark program.
type Config struct {
	Mode   string // "tiny" (tests), "quick", "default" or "full"
	Rounds int    // timed rounds per workload (A B A B interleaved)
	P      int    // parallelism given to the strategies (and GOMAXPROCS)

	// Timeout is the deadlock detector: every strategy first runs a small
	// version of each workload (the probe), which any live strategy finishes
	// in milliseconds; a probe not done within Timeout is a deadlock. Runs at
	// full size get max(10×Timeout, 5× their estimate) before they count as
	// hung.
	Timeout time.Duration
	// RunLimit skips a strategy whose run at full size is estimated (from
	// the probe) to take longer, and a workload whose sequential run is.
	RunLimit time.Duration
	// Single makes the checked run at full size the only sample of every
	// strategy (cold, no rounds): for cells whose runs take minutes, where
	// a second run would double the cell's time and warm-up is noise.
	Single bool
	// CellBudget caps the timed rounds of one strategy on one workload: a
	// slow strategy gets fewer rounds (at least one).
	CellBudget time.Duration
	// MinSample is the shortest timed sample: shorter runs are repeated
	// within one sample and the time divided.
	MinSample time.Duration
	// CeilingLoop is how long the CPU-bound loop of the 2-core ceiling runs.
	CeilingLoop time.Duration

	Workloads  []string // -workloads patterns (none: all of the mode)
	Strategies []string // -strategies patterns (none: all); sequential always runs
	JSONPath   string
	SVGPath    string

	// Isolate runs every workload in a fresh process (see isolate.go); the
	// program does, the in-process tests do not.
	Isolate bool
}

// defaultConfig returns the settings of a mode; flags override them.
func defaultConfig(mode string) (Config, error) {
	c := Config{Mode: mode, Timeout: time.Second}
	switch mode {
	case "tiny":
		c.Rounds, c.RunLimit, c.CellBudget = 1, 2*time.Second, 50*time.Millisecond
		c.MinSample, c.CeilingLoop = 200*time.Microsecond, 5*time.Millisecond
		c.Timeout = 500 * time.Millisecond
	case "quick":
		c.Rounds, c.RunLimit, c.CellBudget = 3, 400*time.Millisecond, 150*time.Millisecond
		c.MinSample, c.CeilingLoop = time.Millisecond, 30*time.Millisecond
		c.Timeout = 500 * time.Millisecond
	case "default":
		c.Rounds, c.RunLimit, c.CellBudget = 5, time.Second, 400*time.Millisecond
		c.MinSample, c.CeilingLoop = 2*time.Millisecond, 60*time.Millisecond
		c.Timeout = 500 * time.Millisecond
	case "full":
		c.Rounds, c.RunLimit, c.CellBudget = 7, 5*time.Second, time.Second
		c.MinSample, c.CeilingLoop = 5*time.Millisecond, 200*time.Millisecond
		c.Timeout = 2 * time.Second
	default:
		return c, fmt.Errorf("unknown mode %q", mode)
	}
	return c, nil
}

// workloadsFor lists the workloads of a mode, in the order they run.
func workloadsFor(mode string) []*Workload {
	var ws []*Workload
	add := func(w ...*Workload) { ws = append(ws, w...) }
	switch mode {
	case "tiny":
		add(treeSumWorkload(tinyTreeLevels), fibWorkload(15),
			matrixWorkload("noop", 2, 200), matrixWorkload("hash", 8, 200),
			matrixWorkload("bal", 20, 30),
			wideWorkload(tinyChain), deepWorkload(tinyChain),
			sortWorkload(4*sortGrain), tinyWorkload(1), tinyWorkload(10),
			tasksWorkload("many_small", "100 small independent tasks (2k iterations each)", TaskSet{Count: 100, Base: 2000, Seed: 1}, 20),
			tasksWorkload("fewer_large", "8 large independent tasks (20k iterations each)", TaskSet{Count: 8, Base: 20000, Seed: 2}, 4),
			tasksWorkload("uneven", "50 uneven tasks (1 in 10 takes 100× longer)", TaskSet{Count: 50, Base: 200, Heavy: 20000, HeavyEvery: 10, Seed: 3}, 20),
			graphWorkload(20, 2000), spawnWorkload(4, 500), blockWorkload(200))
		add(chainSuite(1280)...)
		add(loopSuite(tinyLoop, tinyLoop)...)
	case "quick":
		add(treeSumWorkload(18), fibWorkload(30),
			matrixWorkload("noop", 2, 1e4), matrixWorkload("hash", 8, 1e3),
			matrixWorkload("parse-lt", 10, 200),
			wideWorkload(1e4), deepWorkload(1e5),
			sortWorkload(1e6), tinyWorkload(1), tinyWorkload(10),
			tasksWorkload("many_small", "2000 small independent tasks (2k iterations each)", TaskSet{Count: 2000, Base: 2000, Seed: 1}, 200),
			tasksWorkload("fewer_large", "64 large independent tasks (200k iterations each)", TaskSet{Count: 64, Base: 200000, Seed: 2}, 4),
			tasksWorkload("uneven", "500 uneven tasks (1 in 10 takes 100× longer)", TaskSet{Count: 500, Base: 2000, Heavy: 200000, HeavyEvery: 10, Seed: 3}, 50),
			graphWorkload(200, 2000), spawnWorkload(10, 10000), blockWorkload(1000))
		add(chainSuite(10000)...)
		add(loopSuite(1e6, 1e5)...)
	case "default":
		add(treeSumWorkload(20), fibWorkload(32),
			matrixWorkload("noop", 2, 1e4), matrixWorkload("noop", 8, 1e5),
			matrixWorkload("hash", 8, 1e4), matrixWorkload("parse-lt", 10, 200),
			matrixWorkload("aggr", 20, 200), matrixWorkload("fin", 2, 200),
			matrixWorkload("bal", 8, 200),
			wideWorkload(1e5), deepWorkload(1e5),
			sortWorkload(1e6), tinyWorkload(1), tinyWorkload(10))
		add(seedSuite()...)
		add(spawnWorkload(10, 100000), blockWorkload(1000), blockWorkload(4000))
		add(chainSuite(100000)...)
		add(loopSuite(1e7, 1e6)...)
	case "full":
		add(treeSumWorkload(24), fibWorkload(35))
		for _, m := range MatrixWork {
			for _, bf := range []int{2, 8, 10, 20} {
				for _, n := range []int{200, 1e4, 1e6} {
					add(matrixWorkload(m.Name, bf, n))
				}
			}
		}
		add(wideWorkload(1e6), deepWorkload(1e6),
			sortWorkload(1e7), tinyWorkload(1), tinyWorkload(10))
		add(seedSuite()...)
		add(spawnWorkload(10, 100000), blockWorkload(1000), blockWorkload(4000))
		add(chainSuite(100000)...)
		add(loopSuite(1e7, 1e7)...)
	}
	return ws
}

// seedSuite is the task suite of a published task runtime, at its sizes:
// independent tasks of equal and of uneven length, and a dependency graph.
func seedSuite() []*Workload {
	return []*Workload{
		tasksWorkload("many_small", "2000 small independent tasks (2k iterations each)", TaskSet{Count: 2000, Base: 2000, Seed: 1}, 200),
		tasksWorkload("fewer_large", "64 large independent tasks (2M iterations each)", TaskSet{Count: 64, Base: 2000000, Seed: 2}, 4),
		tasksWorkload("uneven", "500 uneven tasks (1 in 10 takes 100× longer)", TaskSet{Count: 500, Base: 20000, Heavy: 2000000, HeavyEvery: 10, Seed: 3}, 50),
		graphWorkload(200, 2000),
	}
}

// The heaviest shapes of the tiny mode, smaller under the race detector.
var (
	tinyTreeLevels = pick(raceEnabled, 8, 10)
	tinyChain      = pick(raceEnabled, 300, 1000)
	tinyLoop       = pick(raceEnabled, 3000, 20000)
)

func pick(cond bool, a, b int) int {
	if cond {
		return a
	}
	return b
}
