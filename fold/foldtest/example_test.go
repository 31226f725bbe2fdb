package foldtest_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/fold/foldtest"
)

// A property test of a fold over generated trees: in a _test.go file,
// this is the body of a func TestXxx(t *testing.T).
func ExampleCheck() {
	testSum := func(t *testing.T) {
		sum := fold.Sum(func(n *foldtest.Node) int { return n.Label })
		foldtest.Check(t, sum, foldtest.Children, foldtest.Trees(500), nil)
	}
	_ = testSum
}

// The same for fold.RunDAG, on graphs whose nodes have several parents.
func ExampleCheckDAG() {
	testSum := func(t *testing.T) {
		sum := fold.Sum(func(n *foldtest.Node) int { return n.Label })
		foldtest.CheckDAG(t, sum, foldtest.Children, foldtest.Key, foldtest.DAGs(50), nil)
	}
	_ = testSum
}

// A generated tree, written with Node's String.
func ExampleTrees() {
	root := foldtest.Trees(12).Example(3)
	fmt.Println(root.String() != "", fold.Seq(fold.Size[*foldtest.Node](), foldtest.Children, root) <= 12)
	// Output: true true
}

// In a DAG, a shared node is one *Node listed by several parents.
// fold.SeqDAG computes each shared node once: Init runs once per node,
// however many parents list it.
func ExampleDAGs() {
	root := foldtest.DAGs(8).Example(1)
	inits := 0
	count := fold.Size[*foldtest.Node]()
	init := count.Init
	count.Init = func(n *foldtest.Node) int { inits++; return init(n) }
	paths, err := fold.SeqDAG(count, foldtest.Children, root, foldtest.Key)
	fmt.Println(inits <= 8, paths >= inits, err)
	// Output: true true <nil>
}

func ExampleChildren() {
	root := &foldtest.Node{Label: 0, Kids: []*foldtest.Node{{Label: 1}, {Label: 2}}}
	foldtest.Children.Each(root, func(c *foldtest.Node) bool {
		fmt.Println(c.Label)
		return true
	})
	// Output:
	// 1
	// 2
}

func ExampleKey() {
	fmt.Println(foldtest.Key(&foldtest.Node{Label: 7}))
	// Output: 7
}

// Build turns a generated shape into your own node type; through
// rapid.Map it makes a generator of them for Check.
func ExampleBuild() {
	type expr struct {
		op   string
		args []*expr
	}
	shape := &foldtest.Node{Label: 0, Kids: []*foldtest.Node{{Label: 1}, {Label: 2}}}
	e := foldtest.Build(shape, func(label int, kids []*expr) *expr {
		return &expr{op: fmt.Sprint("x", label), args: kids}
	})
	fmt.Println(e.op, len(e.args), e.args[1].op)

	exprs := rapid.Map(foldtest.Trees(100), func(n *foldtest.Node) *expr {
		return foldtest.Build(n, func(label int, kids []*expr) *expr {
			return &expr{op: fmt.Sprint("x", label), args: kids}
		})
	})
	_ = exprs // foldtest.Check(t, myFold, myChildren, exprs, nil)
	// Output: x0 2 x2
}

func ExampleNode() {
	root := &foldtest.Node{Label: 0, Kids: []*foldtest.Node{{Label: 1}, {Label: 2}}}
	fmt.Println(fold.Seq(fold.Sum(func(n *foldtest.Node) int { return n.Label }), foldtest.Children, root))
	// Output: 3
}

func ExampleNode_String() {
	shared := &foldtest.Node{Label: 3}
	root := &foldtest.Node{Label: 0, Kids: []*foldtest.Node{
		{Label: 1, Kids: []*foldtest.Node{shared}},
		{Label: 2, Kids: []*foldtest.Node{shared}},
	}}
	fmt.Println(root)
	// Output: 0(1(3) 2(3^))
}

func ExampleNode_GoString() {
	root := &foldtest.Node{Label: 0, Kids: []*foldtest.Node{{Label: 1}}}
	fmt.Printf("%#v\n", root)
	// Output: foldtest tree of 2 nodes: 0(1)
}
