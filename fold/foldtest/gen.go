package foldtest

import (
	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/internal/testtree"
)

// Trees generates trees of 1 to maxNodes nodes (at least 1) in shapes
// that stress a parallel fold differently: complete trees of branching
// factor 1 to 8; skewed trees (a long spine with leaves hanging off it, the
// spine first or last among siblings); chains; a root with very many
// children, some of them with children of their own; and random trees
// from deep to bushy. No shape draws more than maxNodes nodes; labels
// are numbered in pre-order (see Node). rapid shrinks a failing tree
// toward fewer nodes.
func Trees(maxNodes int) *rapid.Generator[*Node] {
	return rapid.Map(testtree.AnyTree(maxNodes), fromGraph)
}

// DAGs generates acyclic graphs of 1 to maxNodes nodes (at least 1), all
// reachable from the root, with heavy sharing: most nodes are listed by several parents,
// and one parent may list a child twice. Labels identify nodes, so Key is
// the key for fold.RunDAG. A fold that expands shared nodes (fold.Seq, or
// fold.Run on the graph taken as a tree) does work exponential in the
// sharing: keep maxNodes small (about 14) for those.
func DAGs(maxNodes int) *rapid.Generator[*Node] {
	return rapid.Map(testtree.DAG(maxNodes), fromGraph)
}

// fromGraph copies a testtree graph into Nodes, sharing kept, labelled in
// pre-order: the root 0, then each child's subtree in child order, a
// shared node labelled where it is first met. Check numbers the nodes of
// a failing root the same way, so a tree made by Build from a drawn Node
// is shown with the Node's labels.
func fromGraph(g *testtree.Graph) *Node {
	nodes := make([]*Node, len(g.Nodes))
	for i := range g.Nodes {
		nodes[i] = &Node{Label: -1}
	}
	for i, n := range g.Nodes {
		if len(n.Children) == 0 {
			continue
		}
		kids := make([]*Node, len(n.Children))
		for j, c := range n.Children {
			kids[j] = nodes[c.ID]
		}
		nodes[i].Kids = kids
	}
	root := nodes[g.Root.ID]
	next := 0
	stack := []*Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Label >= 0 {
			continue
		}
		n.Label = next
		next++
		for i := len(n.Kids) - 1; i >= 0; i-- {
			stack = append(stack, n.Kids[i])
		}
	}
	return root
}
