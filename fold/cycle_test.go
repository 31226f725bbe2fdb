package fold_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// cyclicShapes are children functions that reach a node again below
// itself: a self-loop, a 2-node cycle, a cycle of 10^5 nodes, a cycle
// whose nodes have a leaf after the next node (so that the parallel walk
// has children to deal while it goes round), a cycle entered after a long
// path, and the same cycles over pointer nodes and over a struct with
// padding.
func cyclicShapes() []struct {
	name string
	run  func(do func(g tree.Treeish[int], root int))
} {
	ring := func(n int) func(int, func(int) bool) {
		return func(i int, yield func(int) bool) { yield((i + 1) % n) }
	}
	type shape = struct {
		name string
		run  func(do func(g tree.Treeish[int], root int))
	}
	plain := func(name string, g func(int, func(int) bool)) shape {
		return shape{name, func(do func(tree.Treeish[int], int)) { do(tree.FromFunc(g), 0) }}
	}
	ringSlice := tree.FromSlice(func(i int) []int { return []int{(i + 1) % 100_000} })
	return []shape{
		{"1e5-cycle-slice", func(do func(tree.Treeish[int], int)) { do(ringSlice, 0) }},
		plain("self-loop", ring(1)),
		plain("2-cycle", ring(2)),
		plain("1e5-cycle", ring(100_000)),
		plain("3-cycle-with-leaves", func(i int, yield func(int) bool) {
			if i < 0 {
				return // a leaf
			}
			_ = yield((i+1)%3) && yield(-1)
		}),
		plain("path-then-2-cycle", func(i int, yield func(int) bool) {
			if i < 50_000 {
				yield(i + 1)
			} else {
				yield(50_000 + (i+1)%2)
			}
		}),
	}
}

// foldEntry runs one entry point on g from root and returns what it
// reported: the panic value or the error.
type foldEntry struct {
	name string
	run  func(p *pool.Pool, g tree.Treeish[int], root int) error
}

func caught(f func()) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("panic %v", v)
			}
		}
	}()
	f()
	return nil
}

func cycleEntries() []foldEntry {
	count := fold.Size[int]()
	return []foldEntry{
		{"fold.Seq", func(_ *pool.Pool, g tree.Treeish[int], r int) error {
			return caught(func() { fold.Seq(count, g, r) })
		}},
		{"fold.Run", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			return caught(func() { fold.Run(p, count, g, r) })
		}},
		{"fold.RunCtx", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			_, err := fold.RunCtx(context.Background(), p, count, g, r)
			return err
		}},
		{"fold.SeqErr", func(_ *pool.Pool, g tree.Treeish[int], r int) error {
			_, err := fold.SeqErr(fold.Lift(count), g, r)
			return err
		}},
		{"fold.RunErr", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			_, err := fold.RunErr(context.Background(), p, fold.Lift(count), g, r)
			return err
		}},
		{"tree.WalkCtx", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			return tree.WalkCtx(context.Background(), p, g, r, func(int) error { return nil })
		}},
		{"tree.Walk", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			return caught(func() { tree.Walk(p, g, r, func(int) {}) })
		}},
		{"tree.Count", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			return caught(func() { tree.Count(p, g, r) })
		}},
		{"tree.Find", func(p *pool.Pool, g tree.Treeish[int], r int) error {
			return caught(func() { tree.Find(p, g, r, func(int) bool { return false }) })
		}},
	}
}

// maxCycleNodes bounds the children listed by one executor on a cyclic
// shape: every shape's cycle is found well within it (by depth 1.6·10^6
// for the longest), so an executor that does not look for cycles fails
// the test at the bound instead of walking for ever.
const maxCycleNodes = 4_000_000

// bounded returns g, which keeps its form (slice or push), with a panic
// once more than maxCycleNodes nodes have been listed.
func bounded(g tree.Treeish[int]) tree.Treeish[int] {
	var listed atomic.Int64
	count := func() {
		if listed.Add(1) > maxCycleNodes {
			panic(fmt.Sprintf("no cycle found in %d nodes", maxCycleNodes))
		}
	}
	if slice := g.SliceFunc(); slice != nil {
		return tree.FromSlice(func(n int) []int { count(); return slice(n) })
	}
	return tree.FromFunc(func(n int, yield func(int) bool) { count(); g.Each(n, yield) })
}

// TestCycleReported: every executor stops on a children function with a
// cycle, with an error that wraps tree.ErrCycle, and the pool stays
// usable.
func TestCycleReported(t *testing.T) {
	defer leakcheck.Check(t)
	for _, par := range []int{1, 2} {
		pool.With(par, func(p *pool.Pool) {
			for _, e := range cycleEntries() {
				for _, s := range cyclicShapes() {
					s.run(func(g tree.Treeish[int], root int) {
						var err error
						if v := caught(func() { err = e.run(p, bounded(g), root) }); v != nil {
							err = v // a panic of an entry with an error result
						}
						if !errors.Is(err, tree.ErrCycle) {
							t.Errorf("p=%d %s on %s: got %v, want an error wrapping tree.ErrCycle", par, e.name, s.name, err)
						}
					})
				}
			}
			if n := tree.Count(p, tree.FromSlice(func(int) []int { return nil }), 0); n != 1 {
				t.Errorf("p=%d: the pool counts %d nodes in a 1-node tree after the cycles", par, n)
			}
		})
	}
}

// TestCycleNodeKinds: a cycle over pointer nodes and over a struct with
// padding between its fields is found as well.
func TestCycleNodeKinds(t *testing.T) {
	type ptrNode struct{ next *ptrNode }
	a, b := &ptrNode{}, &ptrNode{}
	a.next, b.next = b, a
	ptrKids := tree.FromSlice(func(n *ptrNode) []*ptrNode { return []*ptrNode{n.next} })

	type padded struct {
		tag byte
		id  int64
	}
	padKids := tree.FromFunc(func(n padded, yield func(padded) bool) {
		yield(padded{tag: n.tag ^ 1, id: (n.id + 1) % 7})
	})
	pool.With(2, func(p *pool.Pool) {
		if err := caught(func() { fold.Seq(fold.Size[*ptrNode](), ptrKids, a) }); !errors.Is(err, tree.ErrCycle) {
			t.Errorf("Seq over pointers: %v", err)
		}
		if err := caught(func() { fold.Run(p, fold.Size[*ptrNode](), ptrKids, a) }); !errors.Is(err, tree.ErrCycle) {
			t.Errorf("Run over pointers: %v", err)
		}
		if err := caught(func() { fold.Seq(fold.Size[padded](), padKids, padded{}) }); !errors.Is(err, tree.ErrCycle) {
			t.Errorf("Seq over a padded struct: %v", err)
		}
		if err := caught(func() { fold.Run(p, fold.Size[padded](), padKids, padded{}) }); !errors.Is(err, tree.ErrCycle) {
			t.Errorf("Run over a padded struct: %v", err)
		}
	})
}
