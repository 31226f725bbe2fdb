package testtree

import (
	"fmt"

	"github.com/forkjoin-go/forkjoin/tree"
)

// Node is a node of a test tree or graph. ID is unique within a Graph and
// indexes Graph.Nodes; Value is what Sum adds.
type Node struct {
	ID       int
	Value    int64
	Children []*Node
}

// String is "n" followed by the node's ID.
func (n *Node) String() string { return fmt.Sprintf("n%d", n.ID) }

// Children is the Treeish of Node, made by tree.FromSlice: the executors
// read n.Children in place.
var Children = tree.FromSlice(func(n *Node) []*Node { return n.Children })

// ChildrenFunc is the same Treeish made by tree.FromFunc, which yields
// n.Children one by one: the executors' other path, for the tests that
// run both.
var ChildrenFunc = tree.FromFunc(func(n *Node, yield func(*Node) bool) {
	for _, c := range n.Children {
		if !yield(c) {
			return
		}
	}
})

// Treeishes are both forms, by name, for the tests that run each.
var Treeishes = []struct {
	Name string
	G    tree.Treeish[*Node]
}{{"slice", Children}, {"func", ChildrenFunc}}

// Key is the key of a node for DAG folds and checkers: its ID.
func Key(n *Node) int { return n.ID }

// Shape names the generator that made a Graph.
type Shape string

// The shapes of the generators.
const (
	ShapeBalanced Shape = "balanced"
	ShapeSkewed   Shape = "skewed"
	ShapeChain    Shape = "chain"
	ShapeWide     Shape = "wide"
	ShapeRandom   Shape = "random"
	ShapeDAG      Shape = "dag"
	ShapeCyclic   Shape = "cyclic"
)

// Graph is a generated tree or graph. Root is Nodes[0].
type Graph struct {
	Shape Shape
	Root  *Node
	Nodes []*Node
	// Tree is true when every node but the root has exactly one parent
	// (the tree shapes); false for DAG and Cyclic.
	Tree bool
}

// String describes the graph: its shape and its numbers of nodes and edges.
func (g *Graph) String() string {
	edges := 0
	for _, n := range g.Nodes {
		edges += len(n.Children)
	}
	return fmt.Sprintf("%s graph, %d nodes, %d edges", g.Shape, len(g.Nodes), edges)
}

// HasEdge reports whether to is among from's children.
func HasEdge(from, to *Node) bool {
	for _, c := range from.Children {
		if c == to {
			return true
		}
	}
	return false
}

// IsCycle reports whether ids, in order, is a cycle of g: each node has the
// next as a child, and the last has the first.
func (g *Graph) IsCycle(ids []int) bool {
	if len(ids) == 0 {
		return false
	}
	for i, id := range ids {
		next := ids[(i+1)%len(ids)]
		if id < 0 || id >= len(g.Nodes) || next < 0 || next >= len(g.Nodes) {
			return false
		}
		if !HasEdge(g.Nodes[id], g.Nodes[next]) {
			return false
		}
	}
	return true
}

// newGraph makes n nodes with IDs 0..n-1 and values from value.
func newGraph(shape Shape, n int, value func(i int) int64) *Graph {
	nodes := make([]*Node, n)
	for i := range nodes {
		nodes[i] = &Node{ID: i, Value: value(i)}
	}
	return &Graph{Shape: shape, Root: nodes[0], Nodes: nodes, Tree: true}
}

// Complete returns the complete tree of n nodes (n >= 1) with branching
// factor bf in heap order: the children of node i are bf*i+1 .. bf*i+bf
// (those below n). Node i has value i. It is the deterministic builder of
// the benchmarks; a perfect binary tree of depth d is Complete(2, 1<<d-1).
func Complete(bf, n int) *Graph {
	if bf < 1 || n < 1 {
		panic("testtree.Complete: need bf >= 1 and n >= 1")
	}
	g := newGraph(ShapeBalanced, n, func(i int) int64 { return int64(i) })
	for i, nd := range g.Nodes {
		first := bf*i + 1
		if first >= n {
			continue
		}
		last := min(first+bf, n)
		nd.Children = g.Nodes[first:last:last]
	}
	return g
}

// ChainGraph returns a chain of n nodes (n >= 1): node i's only child is
// node i+1. Node i has value i.
func ChainGraph(n int) *Graph {
	g := newGraph(ShapeChain, n, func(i int) int64 { return int64(i) })
	for i := 0; i+1 < n; i++ {
		g.Nodes[i].Children = g.Nodes[i+1 : i+2 : i+2]
	}
	return g
}
