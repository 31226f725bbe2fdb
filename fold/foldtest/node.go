package foldtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/forkjoin-go/forkjoin/tree"
)

// Node is a node of a generated tree or DAG. Label is unique among the
// nodes of one generated root: they are numbered in pre-order, the root 0,
// then the subtree of each child in turn, so String reads 0(1(2 3) 4). In
// a DAG a shared node is one *Node listed by several parents, numbered
// where it is first met.
type Node struct {
	Label int
	Kids  []*Node
}

// Children is the tree.Treeish of Node, made by tree.FromSlice over
// n.Kids.
var Children = tree.FromSlice(func(n *Node) []*Node { return n.Kids })

// Key returns n's label: the key of a Node for fold.RunDAG and CheckDAG.
func Key(n *Node) int { return n.Label }

// Build makes a node of your own type for every node below n, children
// first: newNode receives a node's label and its children already built,
// in order. A node shared in a DAG is built once and the result shared, so
// Build keeps the shape of the graph. When Check fails on a root made by
// Build, it shows the tree with these labels.
func Build[M any](n *Node, newNode func(label int, kids []M) M) M {
	return build(n, newNode, map[*Node]M{})
}

func build[M any](n *Node, newNode func(label int, kids []M) M, done map[*Node]M) M {
	if m, ok := done[n]; ok {
		return m
	}
	var kids []M
	if len(n.Kids) > 0 {
		kids = make([]M, len(n.Kids))
	}
	for i, c := range n.Kids {
		kids[i] = build(c, newNode, done)
	}
	m := newNode(n.Label, kids)
	done[n] = m
	return m
}

// maxShown bounds the nodes String writes.
const maxShown = 200

// String writes the graph below n in brackets, a node as its label followed
// by its children: "0(1 2(3))". A node met again (a shared node of a DAG)
// is written as its label and "^", without its children again.
func (n *Node) String() string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	seen := map[*Node]bool{}
	count := 0
	var write func(*Node)
	write = func(m *Node) {
		if count++; count > maxShown {
			if count == maxShown+1 {
				b.WriteString("…")
			}
			return
		}
		b.WriteString(strconv.Itoa(m.Label))
		if seen[m] {
			b.WriteString("^")
			return
		}
		seen[m] = true
		if len(m.Kids) == 0 {
			return
		}
		b.WriteByte('(')
		for i, c := range m.Kids {
			if i > 0 {
				b.WriteByte(' ')
			}
			write(c)
		}
		b.WriteByte(')')
	}
	write(n)
	return b.String()
}

// GoString is how rapid prints a drawn *Node (%#v): its size and String.
func (n *Node) GoString() string {
	if n == nil {
		return "(*foldtest.Node)(nil)"
	}
	return fmt.Sprintf("foldtest tree of %d nodes: %s", n.size(), n.String())
}

// size counts the distinct nodes below n.
func (n *Node) size() int {
	seen := map[*Node]bool{}
	stack := []*Node{n}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[m] {
			continue
		}
		seen[m] = true
		stack = append(stack, m.Kids...)
	}
	return len(seen)
}
