package testtree

import (
	"pgregory.net/rapid"
)

// The generators draw sizes from 1 to their max argument (at least 1), and
// node values from -1000 to 1000. rapid shrinks failures toward small
// graphs.

func drawValues(t *rapid.T, n int) func(int) int64 {
	vals := rapid.SliceOfN(rapid.Int64Range(-1000, 1000), n, n).Draw(t, "values")
	return func(i int) int64 { return vals[i] }
}

func drawSize(t *rapid.T, limit int, label string) int {
	return rapid.IntRange(1, max(limit, 1)).Draw(t, label)
}

// Balanced generates complete trees of up to maxNodes nodes with a random
// branching factor from 1 to 8.
func Balanced(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph {
		n := drawSize(t, maxNodes, "n")
		bf := rapid.IntRange(1, 8).Draw(t, "bf")
		g := newGraph(ShapeBalanced, n, drawValues(t, n))
		for i, nd := range g.Nodes {
			for c := bf*i + 1; c <= bf*i+bf && c < n; c++ {
				nd.Children = append(nd.Children, g.Nodes[c])
			}
		}
		return g
	})
}

// Skewed generates trees of up to maxNodes nodes made of a spine, each
// spine node having 0..3 leaves besides the next spine node, which comes
// first among its siblings (left-heavy) or last (right-heavy).
func Skewed(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph {
		n := drawSize(t, maxNodes, "n")
		left := rapid.Bool().Draw(t, "left")
		g := newGraph(ShapeSkewed, n, drawValues(t, n))
		spine, next := 0, 1
		for next < n {
			leaves := min(rapid.IntRange(0, 3).Draw(t, "leaves"), n-next-1)
			sp := g.Nodes[spine]
			var kids []*Node
			for range leaves {
				kids = append(kids, g.Nodes[next])
				next++
			}
			child := g.Nodes[next]
			next++
			if left {
				kids = append([]*Node{child}, kids...)
			} else {
				kids = append(kids, child)
			}
			sp.Children = kids
			spine = child.ID
		}
		return g
	})
}

// ChainOf generates chains of up to maxLen nodes.
func ChainOf(maxLen int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph {
		n := drawSize(t, maxLen, "n")
		g := newGraph(ShapeChain, n, drawValues(t, n))
		for i := 0; i+1 < n; i++ {
			g.Nodes[i].Children = []*Node{g.Nodes[i+1]}
		}
		return g
	})
}

// WideOf generates trees of up to maxNodes nodes made of a root with many
// children, a few of which (up to 8, drawn) get 1..3 children of their
// own, so that the wide node is not only leaves. The grandchildren come
// out of the same budget: the root's children are the nodes left over.
func WideOf(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph {
		n := drawSize(t, maxNodes, "n")
		// Every grandparent needs a grandchild and a child to hang it
		// from, so there are at most (n-1)/2 of them, and the
		// grandchildren leave at least one child of the root.
		var below []int // grandchildren of each grandparent
		grandchildren := 0
		for range rapid.IntRange(0, min(8, (n-1)/2)).Draw(t, "grandparents") {
			c := min(rapid.IntRange(1, 3).Draw(t, "grandchildren"), n-2-grandchildren)
			below = append(below, c)
			grandchildren += c
		}
		k := n - 1 - grandchildren // the root's children, at least 1 if any grandparent
		g := newGraph(ShapeWide, n, drawValues(t, n))
		root := g.Root
		root.Children = g.Nodes[1 : k+1 : k+1]
		next := k + 1
		for _, c := range below {
			p := root.Children[rapid.IntRange(0, k-1).Draw(t, "parent")]
			for range c {
				p.Children = append(p.Children, g.Nodes[next])
				next++
			}
		}
		return g
	})
}

// Random generates trees of up to maxNodes nodes where node i's parent is
// drawn among the nodes before it, within a drawn window (a small window
// makes deep trees, a large one bushy trees).
func Random(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph {
		n := drawSize(t, maxNodes, "n")
		window := rapid.IntRange(1, n).Draw(t, "window")
		g := newGraph(ShapeRandom, n, drawValues(t, n))
		for i := 1; i < n; i++ {
			p := rapid.IntRange(max(0, i-window), i-1).Draw(t, "parent")
			g.Nodes[p].Children = append(g.Nodes[p].Children, g.Nodes[i])
		}
		return g
	})
}

// AnyTree generates a tree of any of the tree shapes, up to maxNodes nodes.
func AnyTree(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.OneOf(
		Balanced(maxNodes),
		Skewed(maxNodes),
		ChainOf(maxNodes),
		WideOf(maxNodes),
		Random(maxNodes),
	)
}

// DAG generates acyclic graphs of up to maxNodes nodes, all reachable from
// the root, with heavy sharing: each node i > 0 gets one parent among the
// nodes before it and then each node gets up to 4 more children among the
// nodes after it (a child may repeat in one list). Edges go from lower to
// higher IDs, so there is no cycle.
//
// Folds that expand shared nodes (Seq, or the PreOrder and Brackets folds)
// grow exponentially with sharing: keep maxNodes small (≤ 14) for those.
func DAG(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph { return drawDAG(t, maxNodes, ShapeDAG) })
}

func drawDAG(t *rapid.T, maxNodes int, shape Shape) *Graph {
	n := drawSize(t, maxNodes, "n")
	g := newGraph(shape, n, drawValues(t, n))
	g.Tree = false
	for i := 1; i < n; i++ {
		p := rapid.IntRange(0, i-1).Draw(t, "parent")
		g.Nodes[p].Children = append(g.Nodes[p].Children, g.Nodes[i])
	}
	for i := 0; i+1 < n; i++ {
		for range rapid.IntRange(0, 4).Draw(t, "extra") {
			c := rapid.IntRange(i+1, n-1).Draw(t, "child")
			kids := g.Nodes[i].Children
			at := rapid.IntRange(0, len(kids)).Draw(t, "at")
			kids = append(kids, nil)
			copy(kids[at+1:], kids[at:])
			kids[at] = g.Nodes[c]
			g.Nodes[i].Children = kids
		}
	}
	return g
}

// Cyclic generates graphs like DAG with one back edge added from a node to
// one of its ancestors on the path of first parents (or to itself), so
// every graph has at least one cycle reachable from the root.
func Cyclic(maxNodes int) *rapid.Generator[*Graph] {
	return rapid.Custom(func(t *rapid.T) *Graph {
		g := drawDAG(t, maxNodes, ShapeCyclic)
		// parent[i]: the first node found listing i, which reaches i.
		n := len(g.Nodes)
		parent := make([]int, n)
		for i := range parent {
			parent[i] = -1
		}
		for _, nd := range g.Nodes {
			for _, c := range nd.Children {
				if parent[c.ID] < 0 && c.ID != 0 {
					parent[c.ID] = nd.ID
				}
			}
		}
		from := rapid.IntRange(0, n-1).Draw(t, "from")
		var path []int // from's ancestors via first parents, from itself first
		for i := from; i >= 0; i = parent[i] {
			path = append(path, i)
		}
		to := path[rapid.IntRange(0, len(path)-1).Draw(t, "to")]
		src := g.Nodes[from]
		at := rapid.IntRange(0, len(src.Children)).Draw(t, "at")
		src.Children = append(src.Children, nil)
		copy(src.Children[at+1:], src.Children[at:])
		src.Children[at] = g.Nodes[to]
		return g
	})
}
