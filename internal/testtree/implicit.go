package testtree

import (
	"math/bits"

	"github.com/forkjoin-go/forkjoin/tree"
)

// The implicit trees have nodes 0..n-1 computed from their number and use
// no memory, for the tests of 10^6 and 10^7 nodes.

// Binary returns the complete binary tree of n nodes in heap order: the
// children of i are 2i+1 and 2i+2 when below n. Its height is bits.Len(n).
func Binary(n int) tree.Treeish[int] {
	return tree.FromFunc(func(i int, yield func(int) bool) {
		if c := 2*i + 1; c < n {
			if !yield(c) {
				return
			}
			if c+1 < n {
				yield(c + 1)
			}
		}
	})
}

// BinaryHalf is the half of a Binary tree that node i is in: 1 below the
// root's first child (node 1), 2 below its second (node 2), 0 for the
// root itself. i+1 written in binary is 1, then the path from the root (0
// for a first child, 1 for a second): its second bit is the half.
func BinaryHalf(i int) int {
	if i == 0 {
		return 0
	}
	x := uint(i + 1)
	return int(x>>(bits.Len(x)-2)) - 1
}

// Chain returns the chain of n nodes: the only child of i is i+1.
func Chain(n int) tree.Treeish[int] {
	return tree.FromFunc(func(i int, yield func(int) bool) {
		if i+1 < n {
			yield(i + 1)
		}
	})
}

// Wide returns the tree of n nodes whose root 0 has children 1..n-1, all
// leaves.
func Wide(n int) tree.Treeish[int] {
	return tree.FromFunc(func(i int, yield func(int) bool) {
		if i != 0 {
			return
		}
		for c := 1; c < n; c++ {
			if !yield(c) {
				return
			}
		}
	})
}

// SumTo returns 0+1+...+(n-1), the sum of the nodes of an implicit tree of
// n nodes.
func SumTo(n int) int64 { return int64(n) * int64(n-1) / 2 }
