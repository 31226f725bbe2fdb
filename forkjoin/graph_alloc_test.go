package forkjoin

import (
	"runtime"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

// TestGraphBuiltPerRunBytes: a Graph built afresh for every run allocates
// its nodes, the list of them and its edges, not their run state, which
// comes from arrays shared by all graphs, nor the arrays its build lists
// grew through (graph.go, graphrun.go). A 1 → 200 → 1 graph of uint64
// nodes: a node in chunks of at most 4 KB, 8 bytes for the list, 4 an
// edge, some hundred bytes a run: about 100 bytes a node. Run state kept
// in the nodes (a spawned task each) would take it well over the bound.
func TestGraphBuiltPerRunBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop objects at random")
	}
	p := pool.New(2)
	defer p.Close()
	const fan, runs = 200, 50
	fn := func(*Worker) (uint64, error) { return 1, nil }
	rootDep, mids := make([]Dep, 1), make([]Dep, fan)
	once := func() {
		g := NewGraph()
		rootDep[0] = AddNode(g, fn, nil)
		for j := range mids {
			mids[j] = AddNode(g, fn, rootDep)
		}
		AddNode(g, fn, mids)
		if err := g.Run(p); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 { // the shared arrays and scratch made
		once()
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		once()
	}
	runtime.ReadMemStats(&m1)
	perNode := float64(m1.TotalAlloc-m0.TotalAlloc) / runs / (fan + 2)
	// (A collection during the loop empties the pools: a new array of
	// run state and new scratch, some 4 bytes a node over 50 runs.)
	if perNode > 120 {
		t.Errorf("%.0f bytes a node per build and run, want at most 120", perNode)
	}
	t.Logf("%.0f bytes a node per build and run", perNode)
}
