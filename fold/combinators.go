package fold

import "github.com/forkjoin-go/forkjoin/tree"

// Pair holds the results (or heaps) of two folds run together by Product.
type Pair[A, B any] struct {
	First  A
	Second B
}

// Product returns a fold that runs f1 and f2 in one pass over the tree: its
// heap and result pair those of f1 and f2. For each node, f1's callback is
// called before f2's.
func Product[N, H1, R1, H2, R2 any](f1 Fold[N, H1, R1], f2 Fold[N, H2, R2]) Fold[N, Pair[H1, H2], Pair[R1, R2]] {
	mustFold(f1, "fold.Product (first)")
	mustFold(f2, "fold.Product (second)")
	return Fold[N, Pair[H1, H2], Pair[R1, R2]]{
		Init: func(n N) Pair[H1, H2] {
			h1 := f1.Init(n)
			return Pair[H1, H2]{First: h1, Second: f2.Init(n)}
		},
		Accumulate: func(h *Pair[H1, H2], c Pair[R1, R2]) {
			f1.Accumulate(&h.First, c.First)
			f2.Accumulate(&h.Second, c.Second)
		},
		Finalize: func(h *Pair[H1, H2]) Pair[R1, R2] {
			r1 := f1.Finalize(&h.First)
			return Pair[R1, R2]{First: r1, Second: f2.Finalize(&h.Second)}
		},
	}
}

// Contramap returns a fold over nodes of type M that runs f on the N that
// project gives for each node: a fold written for one node type reused for
// another. The tree walked is still given by a tree.Treeish[M].
func Contramap[N, H, R, M any](f Fold[N, H, R], project func(M) N) Fold[M, H, R] {
	mustFold(f, "fold.Contramap")
	if project == nil {
		panic(nilFunc("fold.Contramap: project"))
	}
	init := f.Init
	return Fold[M, H, R]{
		Init:       func(m M) H { return init(project(m)) },
		Accumulate: f.Accumulate,
		Finalize:   f.Finalize,
	}
}

// Hooks wrap the callbacks of a fold (see Wrap). Each hook receives the
// wrapped callback as next and decides when (and whether) to call it, so a
// hook can log before and after, time the call, or change arguments and
// results. Nil hooks leave their callback as it is. Hooks run on whatever
// goroutine runs the callback, so with a parallel executor they must be
// safe for concurrent use; the heap they receive is never shared.
type Hooks[N, H, R any] struct {
	Init       func(n N, next func(N) H) H
	Accumulate func(h *H, child R, next func(*H, R))
	Finalize   func(h *H, next func(*H) R) R
}

// Wrap returns f with hooks around its callbacks, for tracing and
// instrumentation.
func Wrap[N, H, R any](f Fold[N, H, R], hooks Hooks[N, H, R]) Fold[N, H, R] {
	mustFold(f, "fold.Wrap")
	w := f
	if hook, next := hooks.Init, f.Init; hook != nil {
		w.Init = func(n N) H { return hook(n, next) }
	}
	if hook, next := hooks.Accumulate, f.Accumulate; hook != nil {
		w.Accumulate = func(h *H, c R) { hook(h, c, next) }
	}
	if hook, next := hooks.Finalize, f.Finalize; hook != nil {
		w.Finalize = func(h *H) R { return hook(h, next) }
	}
	return w
}

// Finished is a fold whose root result goes through one more function,
// Root, made by Finish. It is not a Fold itself: the children's results
// are still R, only the value handed back to the caller is an O. Run it
// with its Seq, Run or RunCtx method, or run its Fold with any other
// executor (SeqDAG, RunDAG, RunErr) and apply Root to the result.
type Finished[N, H, R, O any] struct {
	Fold Fold[N, H, R]
	Root func(R) O
}

// Finish returns f with root applied to the root's result only (for
// example, to turn a (sum, count) pair into a mean).
func Finish[N, H, R, O any](f Fold[N, H, R], root func(R) O) Finished[N, H, R, O] {
	mustFold(f, "fold.Finish")
	if root == nil {
		panic(nilFunc("fold.Finish: root"))
	}
	return Finished[N, H, R, O]{Fold: f, Root: root}
}

// Seq runs the fold with Seq and maps the root's result.
func (f Finished[N, H, R, O]) Seq(g tree.Treeish[N], root N) O {
	return f.Root(Seq(f.Fold, g, root))
}
