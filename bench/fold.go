package main

import "fmt"

// Shape is how the nodes of a FoldProblem are linked.
type Shape int

const (
	// ShapeBalanced is a complete tree with branching factor BF in
	// breadth-first numbering: node i has children BF*i+1 .. BF*i+BF (those
	// below N).
	ShapeBalanced Shape = iota
	// ShapeWide is one root (node 0) with N-1 leaf children.
	ShapeWide
	// ShapeChain is a linked list: node i has the single child i+1.
	ShapeChain
)

// Work is the busy work of a fold, in LCG iterations (see spin): per node in
// Init, per child in Accumulate, per node in Finalize and per node when its
// children are listed.
type Work struct {
	Init, Acc, Fin, Children int
}

// MatrixWork is the per-node work of hylic's benchmark matrix, by name. The
// four numbers are init / accumulate / finalize / children iterations.
var MatrixWork = []struct {
	Name string
	Work Work
}{
	{"noop", Work{0, 0, 0, 0}},
	{"hash", Work{5000, 1000, 0, 5000}},
	{"parse-lt", Work{50000, 5000, 5000, 10000}},
	{"aggr", Work{5000, 100000, 5000, 5000}},
	{"fin", Work{0, 0, 100000, 0}},
	{"bal", Work{50000, 50000, 50000, 50000}},
}

// matrixLabel describes a fold of the matrix by its work per node (in
// iterations of a multiply-add loop, about 1 ns each).
func matrixLabel(name string) string {
	w := matrixWork(name)
	if w == (Work{}) {
		return "cheap-node tree fold (no work per node)"
	}
	it := func(n int) string { return countName(n) }
	return fmt.Sprintf("busy-node tree fold (%s work: init %s, accumulate %s, finalize %s, children %s iterations)",
		name, it(w.Init), it(w.Acc), it(w.Fin), it(w.Children))
}

// matrixWork returns the named work of hylic's matrix.
func matrixWork(name string) Work {
	for _, m := range MatrixWork {
		if m.Name == name {
			return m.Work
		}
	}
	panic(fmt.Sprintf("bench: unknown matrix work %q", name))
}

// FoldProblem is a fold over an implicit tree: the node identifiers are
// 0..N-1, node 0 is the root, and the children of a node are a contiguous
// range of identifiers. The fold is hylic's init / accumulate / finalize:
//
//	h := Init(n)
//	first, count := Children(n)
//	for each child c in first..first+count-1, in order: h = Accumulate(h, fold(c))
//	return Finalize(h)
//
// Accumulate mixes the child results in order (see combine), so a strategy
// that accumulates children in the wrong order gets a different result.
type FoldProblem struct {
	Shape Shape
	N     int // number of nodes
	BF    int // branching factor of ShapeBalanced
	Work  Work
}

// Children does the node's children work and returns the range of its
// children.
func (p *FoldProblem) Children(n int) (first, count int) {
	if p.Work.Children > 0 {
		spin(uint64(n), p.Work.Children)
	}
	switch p.Shape {
	case ShapeBalanced:
		first = n*p.BF + 1
		if first >= p.N {
			return first, 0
		}
		return first, min(p.BF, p.N-first)
	case ShapeWide:
		if n == 0 {
			return 1, p.N - 1
		}
		return 0, 0
	default: // ShapeChain
		if n+1 < p.N {
			return n + 1, 1
		}
		return 0, 0
	}
}

// Init returns the initial heap of node n.
func (p *FoldProblem) Init(n int) uint64 {
	h := mix64(uint64(n) + 0x9e3779b97f4a7c15)
	if p.Work.Init > 0 {
		h ^= spin(h, p.Work.Init)
	}
	return h
}

// Accumulate adds one child's result to a heap.
func (p *FoldProblem) Accumulate(h, child uint64) uint64 {
	if p.Work.Acc > 0 {
		child ^= spin(child, p.Work.Acc)
	}
	return combine(h, child)
}

// Finalize turns a heap into the node's result.
func (p *FoldProblem) Finalize(h uint64) uint64 {
	if p.Work.Fin > 0 {
		h ^= spin(h, p.Work.Fin)
	}
	return mix64(h)
}

// Height is the number of levels of the tree (1 for a single node).
func (p *FoldProblem) Height() int {
	switch p.Shape {
	case ShapeWide:
		if p.N > 1 {
			return 2
		}
		return 1
	case ShapeChain:
		return p.N
	}
	h, first, width := 0, 0, 1 // level h spans [first, first+width)
	for first < p.N {
		h++
		first += width
		width *= p.BF
	}
	return h
}

// Iterations is the total number of LCG iterations one fold of p does: the
// basis of the time estimate of a matrix instance.
func (p *FoldProblem) Iterations() float64 {
	n := float64(p.N)
	w := p.Work
	return n*float64(w.Init+w.Fin+w.Children) + (n-1)*float64(w.Acc)
}

// Nested reports whether a parallel fold of p forks from inside forked work
// (a forked child that itself forks): true for a balanced tree of three or
// more levels. Only the root of a wide tree forks, and a chain never forks
// (a single child runs inline).
func (p *FoldProblem) Nested() bool {
	return p.Shape == ShapeBalanced && p.Height() >= 3
}

// foldSeq is the sequential reference: plain recursion. A chain of 10^6
// nodes recurses 10^6 deep; Go's growable stacks allow that (about 100 MB).
func foldSeq(p *FoldProblem, n int) uint64 {
	h := p.Init(n)
	first, count := p.Children(n)
	for c := first; c < first+count; c++ {
		h = p.Accumulate(h, foldSeq(p, c))
	}
	return p.Finalize(h)
}

// foldIter computes the same fold with an explicit stack and no recursion.
// It is the independent expected value of a fold workload, and the shape of a
// sequential fold for trees too deep to recurse on.
func foldIter(p *FoldProblem) uint64 {
	type frame struct {
		node, next, end int
		heap            uint64
	}
	stack := make([]frame, 0, 64)
	push := func(n int) {
		h := p.Init(n)
		first, count := p.Children(n)
		stack = append(stack, frame{node: n, next: first, end: first + count, heap: h})
	}
	push(0)
	for {
		top := &stack[len(stack)-1]
		if top.next < top.end {
			c := top.next
			top.next++
			push(c)
			continue
		}
		r := p.Finalize(top.heap)
		stack = stack[:len(stack)-1]
		if len(stack) == 0 {
			return r
		}
		parent := &stack[len(stack)-1]
		parent.heap = p.Accumulate(parent.heap, r)
	}
}
