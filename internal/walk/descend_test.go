package walk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// dealAt deals at its nth look (counting from 1), and only there.
type dealAt struct{ n, looks atomic.Int64 }

func (s *dealAt) Deal() bool           { return s.looks.Add(1) == s.n.Load() }
func (s *dealAt) Dealt(func() bool)    {}
func (s *dealAt) reset(n int64)        { s.n.Store(n); s.looks.Store(0) }
func (s *dealAt) dealt() (bool, int64) { l := s.looks.Load(); return l >= s.n.Load(), l }

// orderOps folds a tree given by kids into the string of its nodes in
// pre-order, each node's children in brackets: a fold that is wrong if a
// single Accumulate comes out of child order. With slice, the walk reads
// the children from their slices (Ops.Slice), else from the yield
// function.
func orderOps(kids map[int][]int, slice bool) *Ops[int, string, string] {
	ops := &Ops[int, string, string]{
		Init:       func(n int) string { return fmt.Sprint(n) },
		Accumulate: func(h *string, c string) { *h += "[" + c + "]" },
		Finalize:   func(h *string) string { return *h },
		Children: func(n int, yield func(int) bool) {
			for _, c := range kids[n] {
				if !yield(c) {
					return
				}
			}
		},
	}
	if slice {
		ops.Slice = func(n int) []int { return kids[n] }
	}
	return ops
}

// forms are the two ways a walk reads children, for orderOps.
var forms = []struct {
	name  string
	slice bool
}{{"yield", false}, {"slice", true}}

func orderSeq(kids map[int][]int, n int) string {
	var b strings.Builder
	fmt.Fprint(&b, n)
	for _, c := range kids[n] {
		b.WriteString("[" + orderSeq(kids, c) + "]")
	}
	return b.String()
}

// TestDescentUnwindsToFrames: a descent that unwinds leaves exactly the
// frames listing every node on its path would have built. The descent
// starts at 1, the first child of the root 0, and is made to unwind when
// 9 is yielded (the third look: at 4, 6, then 9). Every open node then
// lists what it had not yielded: 6 has 9 left, 4 has 7 and 8 after the
// child being walked (6), 1 has 5 after 4. So the frames above the root's
// are 1, 4, 6 with unstarted children [5], [7 8], [9], and heaps that hold
// only what was accumulated before the unwinding (2, 3 and 5's results are
// not, 7's and 8's neither). The loop then finishes the fold in child
// order.
func TestDescentUnwindsToFrames(t *testing.T) {
	leakcheck.Check(t)
	kids := map[int][]int{0: {1, 2, 3}, 1: {4, 5}, 4: {6, 7, 8}, 6: {9}, 5: {10}}
	for _, form := range forms {
		t.Run(form.name, func(t *testing.T) { unwindToFrames(t, kids, orderOps(kids, form.slice)) })
	}
}

func unwindToFrames(t *testing.T, kids map[int][]int, ops *Ops[int, string, string]) {
	s := &dealAt{}
	pool.With(1, func(p *pool.Pool) {
		forkjoin.RunCtx(WithSchedule(context.Background(), s), p, func(w *forkjoin.Worker) error {
			ops.sched = s
			st := getState(w, ops)
			if _, leaf := st.enter(0, -1); leaf {
				t.Fatal("the root entered as a leaf")
			}
			root := st.frames.top()
			c := st.kids[root.lo]
			root.lo++
			s.reset(3)
			if _, done := st.descend(c, int(root.lo-1)); done {
				t.Fatalf("the descent did not unwind (%d looks)", s.looks.Load())
			}
			if !st.forced || st.unwinding || len(st.scratch) != 0 || len(st.levels) != 0 {
				t.Fatalf("after unwinding: forced %v, unwinding %v, scratch %v, levels %d",
					st.forced, st.unwinding, st.scratch, len(st.levels))
			}
			want := []struct {
				heap string
				left []int
			}{{"0", []int{2, 3}}, {"1", []int{5}}, {"4", []int{7, 8}}, {"6", []int{9}}}
			if st.frames.len() != len(want) {
				t.Fatalf("%d frames, want %d", st.frames.len(), len(want))
			}
			for i, wf := range want {
				f := st.frames.at(i)
				left := slices.Clone(st.kids[f.lo:f.hi])
				if f.h != wf.heap || !slices.Equal(left, wf.left) {
					t.Errorf("frame %d: heap %q, unstarted %v; want %q, %v", i, f.h, left, wf.heap, wf.left)
				}
				if i > 1 && int(f.idx) != int(st.frames.at(i-1).lo)-1 {
					t.Errorf("frame %d: idx %d, its parent's child being walked is at %d", i, f.idx, st.frames.at(i-1).lo-1)
				}
			}
			for i, o := range st.open {
				if o != "" {
					t.Errorf("open[%d] = %q after unwinding, want zero", i, o)
				}
			}
			st.forced = false
			s.reset(-1)
			if got, want := st.loop(w), orderSeq(kids, 0); got != want {
				t.Fatalf("fold = %s, want %s", got, want)
			}
			putState(w, st)
			return nil
		})
	})
}

// TestDescentUnwindsAtEveryLook: the same fold is made to unwind at each
// of its looks in turn, on a tree deeper than recLimit (a chain with a
// branch at every fifth node) and on bushy ones, and always gives Seq's
// result.
func TestDescentUnwindsAtEveryLook(t *testing.T) {
	leakcheck.Check(t)
	trees := map[string]map[int][]int{
		"bushy":  {0: {1, 2, 3}, 1: {4, 5, 6}, 2: {7}, 4: {8, 9}, 7: {10, 11, 12}, 9: {13}},
		"binary": {},
		"comb":   {},
	}
	for n := 0; n < 63; n++ {
		trees["binary"][n] = []int{2*n + 1, 2*n + 2}
	}
	for n := 0; n < 3*recLimit; n++ {
		if n%5 == 0 {
			trees["comb"][n] = []int{n + 1, 1000 + n}
		} else {
			trees["comb"][n] = []int{n + 1}
		}
	}
	// A chain deeper than recLimit, then a bushy bottom: the walk lists it
	// link by link (listDown), and on a pool of one nobody's request makes
	// it dry, so every link's look may deal.
	chain := map[int][]int{}
	for n := 0; n < 3*recLimit; n++ {
		chain[n] = []int{n + 1}
	}
	chain[3*recLimit] = []int{1000, 1001, 1002}
	chain[1001] = []int{1003, 1004}
	for _, form := range forms {
		for name, kids := range trees {
			unwindAtEveryLook(t, form.name+"/"+name, kids, form.slice, 2)
		}
		unwindAtEveryLook(t, form.name+"/chain", chain, form.slice, 1)
	}
}

// unwindAtEveryLook runs the fold of kids on a pool of parallelism par
// with a deal at each look in turn, until a run makes fewer looks than the
// deal's number.
func unwindAtEveryLook(t *testing.T, name string, kids map[int][]int, slice bool, par int) {
	want := orderSeq(kids, 0)
	for look := int64(1); ; look++ {
		s := &dealAt{}
		s.reset(look)
		var got string
		pool.With(par, func(p *pool.Pool) {
			ops := orderOps(kids, slice)
			forkjoin.RunCtx(WithSchedule(context.Background(), s), p, func(w *forkjoin.Worker) error {
				got = Run(w, ops, 0)
				return nil
			})
		})
		if got != want {
			t.Fatalf("%s, unwinding at look %d: fold = %s, want %s", name, look, got, want)
		}
		if dealt, _ := s.dealt(); !dealt {
			break // every look has had its turn
		}
	}
}

// TestWideNodeDealsRangesInOrder: a node of many children, some with
// children of their own, dealt in ranges from the back (several of them
// ahead of the own range at once when deals come often), is folded in
// child order, on both forms, whichever participant takes which range.
func TestWideNodeDealsRangesInOrder(t *testing.T) {
	leakcheck.Check(t)
	kids := map[int][]int{}
	for c := 1; c <= 200; c++ {
		kids[0] = append(kids[0], c)
		if c%3 == 0 {
			kids[c] = []int{1000 + c, 2000 + c}
		}
	}
	want := orderSeq(kids, 0)
	for _, form := range forms {
		for _, n := range []int64{1, 2, 3, 7} {
			s := &everyNth{}
			s.n.Store(n)
			var got string
			pool.With(2, func(p *pool.Pool) {
				ops := orderOps(kids, form.slice)
				forkjoin.RunCtx(WithSchedule(context.Background(), s), p, func(w *forkjoin.Worker) error {
					got = Run(w, ops, 0)
					return nil
				})
			})
			s.check(t)
			if got != want {
				t.Fatalf("%s, a deal every %d looks: fold = %s, want %s", form.name, n, got, want)
			}
		}
	}
}
