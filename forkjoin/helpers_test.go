package forkjoin

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// tnode is the pointer-linked binary tree of the tree-sum tests and
// benchmarks.
type tnode struct {
	val         int64
	left, right *tnode
}

// buildTree returns a perfect binary tree of the given depth (2^depth - 1
// nodes) allocated in pre-order — node, then its left subtree, then its
// right — with values 1, 2, 3, … in that order (next counts them).
func buildTree(depth int, next *int64) *tnode {
	if depth == 0 {
		return nil
	}
	*next++
	n := &tnode{val: *next}
	n.left = buildTree(depth-1, next)
	n.right = buildTree(depth-1, next)
	return n
}

// seqSum is the sequential recursion every parallel tree-sum is compared
// with, left first.
func seqSum(n *tnode) int64 {
	if n == nil {
		return 0
	}
	return n.val + seqSum(n.left) + seqSum(n.right)
}

// sumFork is tree-sum with the typed fork at every node.
var sumFork = NewFork(func(f *Fork[*tnode, int64], w *Worker, n *tnode) int64 {
	if n == nil {
		return 0
	}
	l, r := f.Join(w, n.left, n.right)
	return n.val + l + r
})

// futureSum is tree-sum with a Future at every node: the recursion calls
// itself for the left half, and Future.Join inlines into it.
func futureSum(f *Fork[*tnode, int64], w *Worker, n *tnode) int64 {
	if n == nil {
		return 0
	}
	right := f.Start(w, n.right)
	left := futureSum(f, w, n.left)
	return n.val + left + right.Join(w)
}

var futureSumFork = NewFork(futureSum)

// joinSum is tree-sum with the closure Join at every node.
func joinSum(w *Worker, n *tnode) int64 {
	if n == nil {
		return 0
	}
	var l, r int64
	Join(w,
		func(w *Worker) { l = joinSum(w, n.left) },
		func(w *Worker) { r = joinSum(w, n.right) })
	return n.val + l + r
}

// Tree shapes for randTree.
const (
	shapeBalanced = iota
	shapeLeftChain
	shapeRightChain
	shapeRandom      // each node splits its descendants uniformly
	shapeLopsided    // most descendants on one side, chosen at random
	shapeCaterpillar // a long spine with small trees hanging off it
	numShapes
)

// randTree returns a binary tree of n nodes of the given shape, with
// random values.
func randTree(r *rand.Rand, n, shape int) *tnode {
	if n == 0 {
		return nil
	}
	node := &tnode{val: r.Int64N(1<<40) - 1<<39}
	rest := n - 1
	var left int
	switch shape {
	case shapeBalanced:
		left = rest / 2
	case shapeLeftChain:
		left = rest
	case shapeRightChain:
		left = 0
	case shapeRandom:
		left = r.IntN(rest + 1)
	case shapeLopsided:
		left = rest / 8
		if r.IntN(2) == 0 {
			left = rest - left
		}
	case shapeCaterpillar:
		left = min(rest, r.IntN(4))
	}
	node.left = randTree(r, left, shape)
	node.right = randTree(r, rest-left, shape)
	return node
}

// knode is a tree with any number of children, for Start/Future.
type knode struct {
	val  uint64
	kids []*knode
}

const maxKids = 8

// randKTree returns a tree of n nodes, each with at most maxKids children.
func randKTree(r *rand.Rand, n int) *knode {
	node := &knode{val: r.Uint64()}
	rest := n - 1
	if rest == 0 {
		return node
	}
	k := 1 + r.IntN(min(rest, maxKids))
	sizes := make([]int, k)
	for i := range sizes {
		sizes[i] = 1
	}
	for extra := rest - k; extra > 0; extra-- {
		sizes[r.IntN(k)]++
	}
	for _, s := range sizes {
		node.kids = append(node.kids, randKTree(r, s))
	}
	return node
}

// seqHash is an order-dependent fold of a knode tree: the children's
// results enter in child order, so a parallel version that mixed up which
// result belongs to which child gives another answer.
func seqHash(n *knode) uint64 {
	h := n.val
	for _, k := range n.kids {
		h = h*0x100000001B3 ^ seqHash(k)
	}
	return h
}

// hashFork is seqHash with a Future per child but the first, which runs
// inline; the futures are joined last-forked first.
var hashFork = NewFork(func(f *Fork[*knode, uint64], w *Worker, n *knode) uint64 {
	k := len(n.kids)
	if k == 0 {
		return n.val
	}
	var futures [maxKids]Future[*knode, uint64]
	var res [maxKids]uint64
	for i := 1; i < k; i++ {
		futures[i] = f.Start(w, n.kids[i])
	}
	res[0] = f.Call(w, n.kids[0])
	for i := k - 1; i >= 1; i-- {
		res[i] = futures[i].Join(w)
	}
	h := n.val
	for _, r := range res[:k] {
		h = h*0x100000001B3 ^ r
	}
	return h
})

func seqFib(n int) int {
	a, b := 0, 1
	for ; n > 0; n-- {
		a, b = b, a+b
	}
	return a
}

// fibFork is naive fib with the typed fork at every call.
var fibFork = NewFork(func(f *Fork[int, int], w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := f.Join(w, n-1, n-2)
	return a + b
})

// fibJoin is naive fib with the closure Join at every call.
func fibJoin(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	var a, b int
	Join(w, func(w *Worker) { a = fibJoin(w, n-1) }, func(w *Worker) { b = fibJoin(w, n-2) })
	return a + b
}

// mat is a 2×2 matrix over the integers mod 2^64: its product is
// associative and not commutative.
type mat [4]uint64

var matIdentity = mat{1, 0, 0, 1}

func (a mat) mul(b mat) mat {
	return mat{
		a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3],
		a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3],
	}
}

// errOnce keeps the first problem that any goroutine reports; the test
// checks it on its own goroutine.
type errOnce struct{ p atomic.Pointer[string] }

func (e *errOnce) set(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	e.p.CompareAndSwap(nil, &s)
}

func (e *errOnce) get() string {
	if p := e.p.Load(); p != nil {
		return *p
	}
	return ""
}
