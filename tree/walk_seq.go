package tree

import (
	"iter"
	"slices"

	"github.com/forkjoin-go/forkjoin/internal/walk"
)

// preStack is the explicit stack of the sequential pre-order walks: the
// nodes still to visit, the next one on top. push is built once per walk,
// so listing a node's children allocates nothing once the stack has grown.
type preStack[N any] struct {
	nodes []N
	push  func(N) bool
}

func newPreStack[N any](root N) *preStack[N] {
	s := &preStack[N]{nodes: make([]N, 1, 64)}
	s.nodes[0] = root
	s.push = func(c N) bool {
		s.nodes = append(s.nodes, c)
		return true
	}
	return s
}

// pop removes and returns the top node, clearing its slot so that the stack
// does not keep visited nodes reachable.
func (s *preStack[N]) pop() N {
	last := len(s.nodes) - 1
	n := s.nodes[last]
	var zero N
	s.nodes[last] = zero
	s.nodes = s.nodes[:last]
	return n
}

// list pushes the children of n in order, the last on top.
func (s *preStack[N]) list(g Treeish[N], n N) {
	if g.slice != nil {
		s.nodes = walk.AppendKids(s.nodes, g.slice(n))
		return
	}
	g.each(n, s.push)
}

// expand pushes the children of n so that the first child is on top.
func (s *preStack[N]) expand(g Treeish[N], n N) {
	start := len(s.nodes)
	s.list(g, n)
	slices.Reverse(s.nodes[start:])
}

// WalkSeq visits root and its descendants in pre-order (a node before its
// children, children in the order g yields them) on the calling goroutine.
// If visit returns false the walk stops at once and WalkSeq returns false;
// otherwise it returns true after visiting every node.
//
// The walk keeps an explicit stack of the nodes still to visit (at most the
// children of the nodes on the current path), never recursing, so any
// depth works. The children of a node are listed when the node is visited.
func WalkSeq[N any](g Treeish[N], root N, visit func(N) bool) bool {
	mustFuncs("WalkSeq", []string{"g", "visit"}, g.IsZero(), visit == nil)
	s := newPreStack(root)
	for len(s.nodes) > 0 {
		n := s.pop()
		if !visit(n) {
			return false
		}
		s.expand(g, n)
	}
	return true
}

// All returns the nodes of the tree in pre-order as an iterator, walking
// like WalkSeq each time it is ranged over. Breaking out of the loop stops
// the walk.
func All[N any](g Treeish[N], root N) iter.Seq[N] {
	mustFuncs("All", []string{"g"}, g.IsZero())
	return func(yield func(N) bool) {
		WalkSeq(g, root, yield)
	}
}

// CountSeq returns the number of nodes in the tree, root included.
func CountSeq[N any](g Treeish[N], root N) int {
	mustFuncs("CountSeq", []string{"g"}, g.IsZero())
	s := newPreStack(root)
	count := 0
	for len(s.nodes) > 0 {
		n := s.pop()
		count++
		s.list(g, n) // order does not matter for counting
	}
	return count
}

// FindSeq returns the first node in pre-order for which pred is true, and
// true; or the zero N and false when there is none. The walk stops at the
// node found: no further node is tested or listed.
func FindSeq[N any](g Treeish[N], root N, pred func(N) bool) (N, bool) {
	mustFuncs("FindSeq", []string{"g", "pred"}, g.IsZero(), pred == nil)
	var found N
	ok := false
	WalkSeq(g, root, func(n N) bool {
		if pred(n) {
			found, ok = n, true
			return false
		}
		return true
	})
	return found, ok
}
