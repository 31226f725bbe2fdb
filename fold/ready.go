package fold

import (
	"iter"

	"golang.org/x/exp/constraints"
)

// Number is the constraint of the values Sum adds: every type whose
// underlying type is an integer or a floating-point type.
type Number interface {
	constraints.Integer | constraints.Float
}

// Sum returns a fold whose result is the sum of value(n) over all nodes.
func Sum[N any, V Number](value func(N) V) Fold[N, V, V] {
	if value == nil {
		panic(nilFunc("fold.Sum: value"))
	}
	return Fold[N, V, V]{
		Init:       value,
		Accumulate: func(h *V, c V) { *h += c },
		Finalize:   func(h *V) V { return *h },
	}
}

// Size returns a fold whose result is the number of nodes (the size of
// the tree; tree.Count runs the same count as a walk).
func Size[N any]() Fold[N, int, int] {
	return Fold[N, int, int]{
		Init:       func(N) int { return 1 },
		Accumulate: func(h *int, c int) { *h += c },
		Finalize:   func(h *int) int { return *h },
	}
}

// Depth returns a fold whose result is the height of the tree counted in
// nodes: 1 for a lone root, n for a chain of n nodes.
func Depth[N any]() Fold[N, int, int] {
	return Fold[N, int, int]{
		Init:       func(N) int { return 0 },
		Accumulate: func(h *int, c int) { *h = max(*h, c) },
		Finalize:   func(h *int) int { return *h + 1 },
	}
}

// List is an immutable sequence of nodes, the result of PreOrder. Joining
// lists costs O(1), so collecting a tree of any shape costs time linear in
// its size; Slice, All and Len read it.
//
// A List is a tree of segments: a node followed by the lists of its
// children. Lists are never modified once finalised, so a DAG fold may
// share one in several parents.
type List[N any] struct {
	seg *listSeg[N]
}

type listSeg[N any] struct {
	node  N
	parts []List[N]
	size  int
}

// Len returns the number of nodes in the list.
func (l List[N]) Len() int {
	if l.seg == nil {
		return 0
	}
	return l.seg.size
}

// All returns the nodes of the list in order. It walks the segments with
// an explicit stack, so lists of any depth work.
func (l List[N]) All() iter.Seq[N] {
	return func(yield func(N) bool) {
		if l.seg == nil {
			return
		}
		stack := []*listSeg[N]{l.seg}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !yield(s.node) {
				return
			}
			for i := len(s.parts) - 1; i >= 0; i-- {
				if p := s.parts[i].seg; p != nil {
					stack = append(stack, p)
				}
			}
		}
	}
}

// Slice returns the nodes of the list in a new slice.
func (l List[N]) Slice() []N {
	out := make([]N, 0, l.Len())
	for n := range l.All() {
		out = append(out, n)
	}
	return out
}

// PreOrder returns a fold whose result lists the nodes in pre-order: a
// node before its children, children in the order the tree yields them.
// It allocates one segment per node.
func PreOrder[N any]() Fold[N, List[N], List[N]] {
	return Fold[N, List[N], List[N]]{
		Init: func(n N) List[N] { return List[N]{seg: &listSeg[N]{node: n, size: 1}} },
		Accumulate: func(h *List[N], c List[N]) {
			h.seg.parts = append(h.seg.parts, c)
			h.seg.size += c.Len()
		},
		Finalize: func(h *List[N]) List[N] { return *h },
	}
}
