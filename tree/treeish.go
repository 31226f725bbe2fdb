package tree

import (
	"iter"

	"github.com/forkjoin-go/forkjoin/internal/walk"
)

// Treeish yields the children of node n, in order, to yield. It stops as
// soon as yield returns false. Yielding no child makes n a leaf.
//
// A Treeish must yield the same children, in the same order, each time it
// is called for the same node while a walk or fold is running; the parallel
// executors rely on it. It may be called from several goroutines at once.
type Treeish[N any] func(n N, yield func(child N) bool)

// FromSlice makes a Treeish from a function returning the children of a
// node as a slice. The slice is read, never modified or kept.
func FromSlice[N any](children func(n N) []N) Treeish[N] {
	mustFuncs("FromSlice", []string{"children"}, children == nil)
	return func(n N, yield func(N) bool) {
		for _, c := range children(n) {
			if !yield(c) {
				return
			}
		}
	}
}

// FromSeq makes a Treeish from a function returning the children of a node
// as an iterator. The iterator is run once per call, and stopped when the
// caller wants no more children, so children can be produced lazily.
func FromSeq[N any](children func(n N) iter.Seq[N]) Treeish[N] {
	mustFuncs("FromSeq", []string{"children"}, children == nil)
	return func(n N, yield func(N) bool) {
		if seq := children(n); seq != nil {
			seq(yield)
		}
	}
}

// AppendChildren appends the children of n to buf and returns the extended
// slice, like append.
func AppendChildren[N any](buf []N, g Treeish[N], n N) []N {
	g(n, func(c N) bool {
		buf = append(buf, c)
		return true
	})
	return buf
}

// Children returns the children of n as an iterator, for range loops.
func (g Treeish[N]) Children(n N) iter.Seq[N] {
	return func(yield func(N) bool) { g(n, yield) }
}

// mustFuncs panics, naming the function called and the argument, if any
// of the function arguments it was given is nil (nils[i] says whether
// args[i] is): a nil function caught where it is passed, not where it is
// first called, possibly on another goroutine deep inside a walk. The
// argument "g" is the children function.
func mustFuncs(name string, args []string, nils ...bool) {
	for i, isNil := range nils {
		if isNil {
			arg := args[i]
			if arg == "g" {
				arg = "children function g"
			}
			panic("tree: " + name + " with a nil " + arg)
		}
	}
}

// ErrCycle is wrapped by the error with which the walks of this package,
// and the folds of package fold, stop when the children function reaches
// a node again below itself: the tree it describes is infinite. Walk,
// Count, Find, fold.Seq and fold.Run panic with it (the parallel ones
// inside a *forkjoin.PanicError, which errors.Is sees through); the
// ...Ctx and ...Err variants return it.
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
