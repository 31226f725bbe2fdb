package forkjoin

import (
	"context"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestNilMisuse: nil and zero values where the API needs real ones panic
// with a message naming the mistake, not with a nil-pointer dereference.
func TestNilMisuse(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	noop := func(*Worker) {}
	mustPanic(t, "Join(nil, a, b)", "Join with a nil *Worker", func() { Join(nil, noop, noop) })

	mustPanic(t, "zero Fork's Join", "zero Fork value", func() {
		Run(p, func(w *Worker) {
			var f Fork[int, int]
			f.Join(w, 1, 2)
		})
	})
	mustPanic(t, "zero Fork's Join, slab argument", "zero Fork value", func() {
		Run(p, func(w *Worker) {
			var f Fork[[3]int, int]
			f.Join(w, [3]int{}, [3]int{})
		})
	})

	mustPanic(t, "nil Fork's Call", "nil *Fork", func() {
		Run(p, func(w *Worker) {
			var f *Fork[int, int]
			f.Call(w, 1)
		})
	})
	mustPanic(t, "zero Fork's Call", "zero Fork value", func() {
		Run(p, func(w *Worker) {
			var f Fork[int, int]
			f.Call(w, 1)
		})
	})

	var h *Handle[int]
	mustPanic(t, "nil Handle's Join", "nil *Handle", func() { h.Join() })
	mustPanic(t, "nil Handle's Wait", "nil *Handle", func() { h.Wait(context.Background()) })
	mustPanic(t, "nil Handle's Done", "nil *Handle", func() { h.Done() })

	one := func(*Worker) (int, error) { return 1, nil }
	g := NewGraph()
	mustPanic(t, "AddNode with a nil Dep", "nil dependency", func() { AddNode(g, one, []Dep{nil}) })
	var gn *GraphNode[int]
	mustPanic(t, "AddNode with a typed-nil *GraphNode", "nil dependency", func() { AddNode(g, one, []Dep{gn}) })

	mustPanic(t, "empty Graph.Run(nil)", "nil *pool.Pool", func() { NewGraph().Run(nil) })
	mustPanic(t, "empty Graph.RunCtx(ctx, nil)", "nil *pool.Pool", func() { NewGraph().RunCtx(context.Background(), nil) })
	mustPanic(t, "non-empty Graph.Run(nil)", "nil *pool.Pool", func() {
		g := NewGraph()
		AddNode(g, one, nil)
		g.Run(nil)
	})
	var ng *Graph
	mustPanic(t, "nil Graph's Run", "nil *Graph", func() { ng.Run(p) })
	closed := pool.New(1)
	closed.Close()
	mustPanic(t, "empty Graph.Run on a closed pool", "closed pool", func() { NewGraph().Run(closed) })
}
