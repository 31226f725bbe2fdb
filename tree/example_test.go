package tree_test

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/tree"
)

// org is the small tree of the examples.
var org = map[string][]string{
	"ceo": {"cto", "cfo"},
	"cto": {"dev1", "dev2"},
	"cfo": {"acct"},
}

var orgTree = tree.FromSlice(func(n string) []string { return org[n] })

func ExampleTreeish() {
	// A Treeish of a tree that exists nowhere in memory: the children of n
	// are n/2 and n/3 (while above 1).
	divs := tree.FromFunc(func(n int, yield func(int) bool) {
		for _, d := range []int{2, 3} {
			if n/d > 1 && !yield(n/d) {
				return
			}
		}
	})
	fmt.Println(slices.Collect(tree.All(divs, 12)))
	// Output: [12 6 3 2 4 2]
}

func ExampleTreeish_Children() {
	for c := range orgTree.Children("ceo") {
		fmt.Println(c)
	}
	// Output:
	// cto
	// cfo
}

func ExampleFromFunc() {
	// The children of a node in a binary heap of 10 nodes: 2i+1 and 2i+2.
	heap := tree.FromFunc(func(i int, yield func(int) bool) {
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < 10 && !yield(c) {
				return
			}
		}
	})
	fmt.Println(tree.CountSeq(heap, 0), slices.Collect(heap.Children(1)))
	// Output: 10 [3 4]
}

func ExampleTreeish_Each() {
	orgTree.Each("ceo", func(c string) bool {
		fmt.Println(c)
		return true
	})
	// Output:
	// cto
	// cfo
}

func ExampleTreeish_SliceFunc() {
	// An executor of one's own reads a slice Treeish's children in place.
	var count func(g tree.Treeish[string], n string) int
	count = func(g tree.Treeish[string], n string) int {
		c := 1
		for _, k := range g.SliceFunc()(n) {
			c += count(g, k)
		}
		return c
	}
	fmt.Println(count(orgTree, "ceo"), tree.FromIter(func(string) iter.Seq[string] { return nil }).SliceFunc() == nil)
	// Output: 6 true
}

func ExampleTreeish_IsZero() {
	var g tree.Treeish[int]
	fmt.Println(g.IsZero(), orgTree.IsZero())
	// Output: true false
}

func ExampleFromSlice() {
	g := tree.FromSlice(func(n string) []string { return org[n] })
	fmt.Println(slices.Collect(tree.All(g, "ceo")))
	// Output: [ceo cto dev1 dev2 cfo acct]
}

func ExampleFromIter() {
	// Children produced lazily: the lines below a heading, one level deeper.
	doc := []string{"a", " a1", " a2", "  a2x", "b"}
	children := func(i int) iter.Seq[int] {
		return func(yield func(int) bool) {
			depth := func(j int) int { return len(doc[j]) - len(strings.TrimLeft(doc[j], " ")) }
			want := 0
			if i >= 0 {
				want = depth(i) + 1
			}
			for j := i + 1; j < len(doc) && (i < 0 || depth(j) > depth(i)); j++ {
				if depth(j) == want && !yield(j) {
					return
				}
			}
		}
	}
	g := tree.FromIter(children)
	tree.WalkSeq(g, -1, func(i int) bool {
		if i >= 0 {
			fmt.Println(doc[i])
		}
		return true
	})
	// Output:
	// a
	//  a1
	//  a2
	//   a2x
	// b
}

func ExampleAppendChildren() {
	buf := make([]string, 0, 8)
	buf = tree.AppendChildren(buf, orgTree, "ceo")
	buf = tree.AppendChildren(buf, orgTree, "cto")
	fmt.Println(buf)
	// Output: [cto cfo dev1 dev2]
}

func ExampleFilter() {
	noFinance := tree.Filter(orgTree, func(n string) bool { return n != "cfo" })
	fmt.Println(slices.Collect(tree.All(noFinance, "ceo")))
	// Output: [ceo cto dev1 dev2]
}

func ExampleMap() {
	// Walk the org chart with upper-case names.
	upper := tree.Map(orgTree, strings.ToUpper, strings.ToLower)
	fmt.Println(slices.Collect(tree.All(upper, "CEO")))
	// Output: [CEO CTO DEV1 DEV2 CFO ACCT]
}

func ExampleContramap() {
	// Carry the path from the root down to each node.
	type path struct {
		name string
		from string
	}
	paths := tree.Contramap(orgTree,
		func(p path) string { return p.name },
		func(parent path, child string) path { return path{child, parent.from + "/" + child} })
	for p := range tree.All(paths, path{"ceo", "/ceo"}) {
		fmt.Println(p.from)
	}
	// Output:
	// /ceo
	// /ceo/cto
	// /ceo/cto/dev1
	// /ceo/cto/dev2
	// /ceo/cfo
	// /ceo/cfo/acct
}

func ExampleMemoize() {
	// A DAG: both "a" and "b" list "shared"; its children are listed once.
	calls := 0
	dag := tree.FromFunc(func(n string, yield func(string) bool) {
		calls++
		switch n {
		case "root":
			_ = yield("a") && yield("b")
		case "a", "b":
			yield("shared")
		case "shared":
			_ = yield("x") && yield("y")
		}
	})
	memo := tree.Memoize(dag, func(n string) string { return n })
	fmt.Println(slices.Collect(tree.All(memo, "root")))
	fmt.Println("children listed", calls, "times for 9 visits")
	// Output:
	// [root a shared x y b shared x y]
	// children listed 6 times for 9 visits
}

func ExampleTrace() {
	var listed, yielded atomic.Int64
	traced := tree.Trace(orgTree, tree.TraceHooks[string]{
		Node:  func(string) { listed.Add(1) },
		Child: func(parent, child string, i int) { yielded.Add(1) },
	})
	fmt.Println(tree.CountSeq(traced, "ceo"), listed.Load(), yielded.Load())
	// Output: 6 6 5
}

func ExampleTraceHooks() {
	traced := tree.Trace(orgTree, tree.TraceHooks[string]{
		Done: func(n string, yielded int, stopped bool) {
			if yielded > 0 {
				fmt.Printf("%s: %d children, stopped=%v\n", n, yielded, stopped)
			}
		},
	})
	// FindSeq stops at dev1, while the children of cto are being listed.
	tree.FindSeq(traced, "ceo", func(n string) bool { return n == "dev1" })
	// Output:
	// ceo: 2 children, stopped=false
	// cto: 2 children, stopped=false
}

func ExampleWalkSeq() {
	// Stop at the first leaf.
	completed := tree.WalkSeq(orgTree, "ceo", func(n string) bool {
		fmt.Println(n)
		return len(org[n]) > 0
	})
	fmt.Println(completed)
	// Output:
	// ceo
	// cto
	// dev1
	// false
}

func ExampleAll() {
	for n := range tree.All(orgTree, "cto") {
		fmt.Println(n)
	}
	// Output:
	// cto
	// dev1
	// dev2
}

func ExampleCountSeq() {
	fmt.Println(tree.CountSeq(orgTree, "ceo"))
	// Output: 6
}

func ExampleFindSeq() {
	n, ok := tree.FindSeq(orgTree, "ceo", func(n string) bool { return strings.HasPrefix(n, "dev") })
	fmt.Println(n, ok)
	_, ok = tree.FindSeq(orgTree, "ceo", func(n string) bool { return n == "intern" })
	fmt.Println(ok)
	// Output:
	// dev1 true
	// false
}
