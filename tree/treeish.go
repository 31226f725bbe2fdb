package tree

import (
	"iter"

	"github.com/forkjoin-go/forkjoin/internal/walk"
)

// Treeish describes a tree by the children of its nodes: for a node, its
// children, in order. Yielding no child makes a node a leaf. Make one with
// FromSlice (children kept in a slice: the fastest form, which the
// executors read without a call per child), FromIter (an iterator) or
// FromFunc (a function that yields them); the combinators of this package
// make new ones from old. The zero Treeish describes nothing: the walks
// and folds panic when given one.
//
// A Treeish must give the same children, in the same order, each time it
// is asked for the same node while a walk or fold is running; the parallel
// executors rely on it. It may be asked from several goroutines at once.
type Treeish[N any] struct {
	each  func(n N, yield func(child N) bool) // always set in a valid Treeish
	slice func(n N) []N                       // set by FromSlice and Memoize
}

// FromFunc makes a Treeish from a function that yields the children of
// node n, in order, to yield, and stops as soon as yield returns false.
func FromFunc[N any](children func(n N, yield func(child N) bool)) Treeish[N] {
	mustFuncs("FromFunc", []string{"children"}, children == nil)
	return Treeish[N]{each: children}
}

// FromSlice makes a Treeish from a function returning the children of a
// node as a slice. The slice is read, never modified or kept beyond the
// walk or fold that asked for it.
func FromSlice[N any](children func(n N) []N) Treeish[N] {
	mustFuncs("FromSlice", []string{"children"}, children == nil)
	return Treeish[N]{slice: children, each: func(n N, yield func(N) bool) {
		for _, c := range children(n) {
			if !yield(c) {
				return
			}
		}
	}}
}

// FromIter makes a Treeish from a function returning the children of a node
// as an iterator. The iterator is run once per call, and stopped when the
// caller wants no more children, so children can be produced lazily.
func FromIter[N any](children func(n N) iter.Seq[N]) Treeish[N] {
	mustFuncs("FromIter", []string{"children"}, children == nil)
	return Treeish[N]{each: func(n N, yield func(N) bool) {
		if seq := children(n); seq != nil {
			seq(yield)
		}
	}}
}

// Each calls yield with the children of n, in order, until yield returns
// false.
func (g Treeish[N]) Each(n N, yield func(child N) bool) { g.each(n, yield) }

// Children returns the children of n as an iterator, for range loops.
func (g Treeish[N]) Children(n N) iter.Seq[N] {
	return func(yield func(N) bool) { g.each(n, yield) }
}

// SliceFunc returns the function g was made from by FromSlice (or that
// Memoize keeps its children with), or nil for any other Treeish. An
// executor reads a node's children from it as a slice, with no call per
// child, and must not modify the slice.
func (g Treeish[N]) SliceFunc() func(n N) []N { return g.slice }

// IsZero reports whether g is the zero Treeish, which describes nothing.
func (g Treeish[N]) IsZero() bool { return g.each == nil }

// AppendChildren appends the children of n to buf and returns the extended
// slice, like append.
func AppendChildren[N any](buf []N, g Treeish[N], n N) []N {
	if g.slice != nil {
		return append(buf, g.slice(n)...)
	}
	g.each(n, func(c N) bool {
		buf = append(buf, c)
		return true
	})
	return buf
}

// mustFuncs panics, naming the function called and the argument, if any
// of the function arguments it was given is nil (nils[i] says whether
// args[i] is): a nil function caught where it is passed, not where it is
// first called, possibly on another goroutine deep inside a walk. The
// argument "g" is a Treeish, which is "nil" when it is the zero Treeish.
func mustFuncs(name string, args []string, nils ...bool) {
	for i, isNil := range nils {
		if isNil {
			if args[i] == "g" {
				panic("tree: " + name + " with the zero Treeish g (no children function)")
			}
			panic("tree: " + name + " with a nil " + args[i])
		}
	}
}

// ErrCycle is wrapped by the error with which the walks of this package,
// and the folds of package fold, stop when the children function reaches
// a node again below itself: the tree it describes is infinite. Walk,
// Count, Find, fold.Seq and fold.Run panic with it (the parallel ones
// inside a *forkjoin.PanicError, which errors.Is sees through); fold.SeqErr
// and the ...Ctx and ...Err variants return it.
//
// A node is taken for a repeat when its value is identical, bit for bit,
// to an ancestor's (the same pointer, the same integer). Paths are checked
// from depth 4096 on, with one comparison per eight nodes below it; a
// cycle of length L entered at depth e is reported by depth
// 2·max(e, 8L, 4096). The
// sequential pre-order walks (WalkSeq, All, CountSeq, FindSeq) do not
// check: on a cycle they go on visiting, as over any infinite tree, until
// visit stops them.
var ErrCycle = walk.ErrCycle
