package fold

import (
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/tree"
)

// FoldErr is a Fold whose callbacks may fail. The first error returned by a
// callback stops the fold: no further callback is called and the executor
// returns that error. Otherwise it follows the same contract as Fold.
type FoldErr[N, H, R any] struct {
	Init       func(n N) (H, error)
	Accumulate func(h *H, child R) error
	Finalize   func(h *H) (R, error)
}

// NewErr returns the FoldErr with the given callbacks. A nil callback
// panics with an error wrapping ErrNilFunc that names it.
func NewErr[N, H, R any](init func(n N) (H, error), accumulate func(h *H, child R) error, finalize func(h *H) (R, error)) FoldErr[N, H, R] {
	mustNotNil("fold.NewErr", []string{"init", "accumulate", "finalize"}, init == nil, accumulate == nil, finalize == nil)
	return FoldErr[N, H, R]{Init: init, Accumulate: accumulate, Finalize: finalize}
}

// Lift turns a Fold into a FoldErr whose callbacks never fail, to combine
// it with fallible folds or run it where a FoldErr is expected.
func Lift[N, H, R any](f Fold[N, H, R]) FoldErr[N, H, R] {
	mustFold(f, "fold.Lift")
	return FoldErr[N, H, R]{
		Init:       func(n N) (H, error) { return f.Init(n), nil },
		Accumulate: func(h *H, c R) error { f.Accumulate(h, c); return nil },
		Finalize:   func(h *H) (R, error) { return f.Finalize(h), nil },
	}
}

// mustCheckErr panics, as who, if one of f's callbacks is nil or g is the zero Treeish.
func mustCheckErr[N, H, R any](who string, f FoldErr[N, H, R], g tree.Treeish[N]) {
	mustNotNil(who, []string{"FoldErr.Init", "FoldErr.Accumulate", "FoldErr.Finalize", "children (the zero tree.Treeish)"},
		f.Init == nil, f.Accumulate == nil, f.Finalize == nil, g.IsZero())
}

// SeqErr runs f over the tree below root on the calling goroutine, like
// Seq, and returns the root's result. The first error returned by a
// callback stops the fold at once and is returned as it is (not wrapped),
// with the zero R. The children of the node whose callback failed are not
// folded, nor is any node after it in the walk.
//
// If g reaches a node again below itself, SeqErr stops and returns an
// error wrapping tree.ErrCycle, found as Seq finds it (see tree.ErrCycle).
//
// A nil callback or the zero g panics with an error wrapping ErrNilFunc.
// A panic in a callback or in g propagates unchanged.
func SeqErr[N, H, R any](f FoldErr[N, H, R], g tree.Treeish[N], root N) (R, error) {
	var zero R
	mustCheckErr("fold.SeqErr", f, g)
	init, acc, fin := f.Init, f.Accumulate, f.Finalize
	ks := newKidStack[N]()
	fs := newFrameStack[frame[H]]()
	spare := new(frame[H])
	var cycle walk.CycleCheck[N]
	depth := 0 // of top
	h, err := init(root)
	if err != nil {
		return zero, err
	}
	top := fs.push(frame[H]{h: h})
	ks.list(g, root)
	for {
		if top.next < len(ks.kids) {
			c := ks.take(top.start, &top.next)
			h, err := init(c)
			if err != nil {
				return zero, err
			}
			at := fs.slot(spare)
			start := len(ks.kids)
			*at = frame[H]{h: h, start: start, next: start}
			ks.list(g, c)
			if len(ks.kids) > start {
				if depth++; depth >= walk.CycleFrom && depth%walk.CycleStride == 0 {
					if err := cycle.EnterErr(c, depth); err != nil {
						return zero, err
					}
				}
				top = fs.commit(at, spare)
				continue
			}
			r, err := fin(&at.h)
			*at = frame[H]{}
			if err != nil {
				return zero, err
			}
			if err := acc(&top.h, r); err != nil {
				return zero, err
			}
			continue
		}
		r, err := fin(&top.h)
		if err != nil {
			return zero, err
		}
		ks.kids = ks.kids[:top.start]
		if top = fs.pop(); top == nil {
			return r, nil
		}
		depth--
		if err := acc(&top.h, r); err != nil {
			return zero, err
		}
	}
}
