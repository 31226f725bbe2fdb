package foldtest

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/tree"
)

// own is a node type of a user's, with a field besides its children.
type own struct {
	label int
	name  string
	kids  []*own
}

var ownKids = tree.FromSlice(func(n *own) []*own { return n.kids })

// TestOutlineShowsBuildLabels: a tree or DAG built with Build from a drawn
// Node is numbered with the Node's labels, and written as Node.String
// writes the Node; each node's key is its label.
func TestOutlineShowsBuildLabels(t *testing.T) {
	for name, gen := range map[string]*rapid.Generator[*Node]{"Trees": Trees(200), "DAGs": DAGs(30)} {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				root := gen.Draw(t, "root")
				built := Build(root, func(label int, kids []*own) *own { return &own{label: label, kids: kids} })
				o := newOutline(ownKids, built, idOf[*own]())
				if got, want := o.String(), root.String(); got != want {
					t.Fatalf("outline %s, drawn %s", got, want)
				}
				stack := []*own{built}
				for len(stack) > 0 {
					n := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					if k := o.key(n); k != n.label {
						t.Fatalf("node labelled %d has key %v", n.label, k)
					}
					stack = append(stack, n.kids...)
				}
			})
		})
	}
}

// TestDescribeShowsContents: a failure's description of a root of the
// user's type gives the shape and each node's fields but its children.
func TestDescribeShowsContents(t *testing.T) {
	root := &own{name: "root", kids: []*own{{name: "a"}, {name: "b", kids: []*own{{name: "c"}}}}}
	text := describe[*own]{newOutline(ownKids, root, idOf[*own]())}.String()
	for _, want := range []string{"a tree of 4 nodes", ": 0(1 2(3))", "0: {label:0 name:root}", "3: {label:0 name:c}"} {
		if !strings.Contains(text, want) {
			t.Errorf("the description does not show %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "0x") {
		t.Errorf("the description shows addresses:\n%s", text)
	}
}

// TestUnstableChildren: a children function that answers differently is
// named, with the node and both answers; a steady one is not.
func TestUnstableChildren(t *testing.T) {
	root := &own{kids: []*own{{label: 1}, {label: 2}}}
	calls := 0
	flip := tree.FromFunc(func(n *own, yield func(*own) bool) {
		calls++
		for i := range n.kids {
			if calls%2 == 0 {
				i = len(n.kids) - 1 - i
			}
			if !yield(n.kids[i]) {
				return
			}
		}
	})
	if msg := newOutline(ownKids, root, idOf[*own]()).unstable(); msg != "" {
		t.Fatalf("a steady children function reported: %s", msg)
	}
	msg := newOutline(flip, root, idOf[*own]()).unstable()
	if !strings.Contains(msg, "the children function is not deterministic: node 0's children were listed as [") {
		t.Fatalf("got %q", msg)
	}
}
