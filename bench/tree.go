package main

// Node is one node of the tree-sum workload: a perfect binary tree of
// pointer-linked nodes with an int64 value each.
type Node struct {
	Left, Right *Node
	Value       int64
}

// BuildTree builds a perfect binary tree with the given number of levels
// (2^levels - 1 nodes) and returns its root and the sum of its values.
//
// The nodes are allocated in pre-order: a node, then its whole left subtree,
// then its whole right subtree, all from one backing array, so a left-first
// walk reads memory front to back as in the published Spice / Chili / Rayon
// benchmarks. The values are small pseudo-random numbers derived from each
// node's pre-order index.
func BuildTree(levels int) (root *Node, sum int64) {
	if levels <= 0 {
		return nil, 0
	}
	nodes := make([]Node, 1<<levels-1)
	next := 0
	var build func(level int) *Node
	build = func(level int) *Node {
		n := &nodes[next]
		n.Value = int64(mix64(uint64(next)) % 1000)
		sum += n.Value
		next++
		if level > 1 {
			n.Left = build(level - 1)
			n.Right = build(level - 1)
		}
		return n
	}
	root = build(levels)
	return root, sum
}

// treeSumSeq is the sequential reference: plain recursion, left first.
func treeSumSeq(n *Node) int64 {
	s := n.Value
	if n.Left != nil {
		s += treeSumSeq(n.Left)
	}
	if n.Right != nil {
		s += treeSumSeq(n.Right)
	}
	return s
}

// fibSeq is the sequential reference for fib: naive recursion.
func fibSeq(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibIter is fib computed in a loop: the expected result of the fib workload,
// independent of every strategy.
func fibIter(n int) int64 {
	a, b := int64(0), int64(1)
	for i := 0; i < n; i++ {
		a, b = b, a+b
	}
	return a
}

// fibCalls is the number of calls naive fib(n) makes (the per-call unit of
// the fib workload): calls(n) = 1 + calls(n-1) + calls(n-2), calls(0..1) = 1.
func fibCalls(n int) float64 {
	a, b := 1.0, 1.0 // calls(0), calls(1)
	for i := 2; i <= n; i++ {
		a, b = b, 1+a+b
	}
	if n == 0 {
		return a
	}
	return b
}
