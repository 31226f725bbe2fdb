package main

import "sync"

// The plain recursion a Go programmer writes for a fold over a tree of
// pointer nodes with a slice of children, allocated in pre-order:
//
//	h := Init(n); for _, c := range n.Kids { h = Accumulate(h, fold(c)) }; return Finalize(h)
//
// The tree of a FoldProblem is built once, untimed in the check run, and
// kept until another problem is asked for. This is the row a user compares
// a fold against; "sequential" computes the children of an implicit tree.
func init() {
	register(&Strategy{
		Name:   "plain-recursion",
		Family: "baseline",
		Desc:   "plain recursion over pointer nodes with a children slice (the tree built once, in pre-order)",
		Fold: func(_ *Env, p *FoldProblem) uint64 {
			return foldPlain(p, plainTreeOf(p))
		},
	})
}

type plainNode struct {
	id   int
	kids []*plainNode
}

func foldPlain(p *FoldProblem, n *plainNode) uint64 {
	h := p.Init(n.id)
	if p.Work.Children > 0 {
		spin(uint64(n.id), p.Work.Children)
	}
	for _, c := range n.kids {
		h = p.Accumulate(h, foldPlain(p, c))
	}
	return p.Finalize(h)
}

var plainCache struct {
	sync.Mutex
	p    FoldProblem
	root *plainNode
}

// plainTreeOf returns the pointer tree of p's shape, building it on the
// first call for p.
func plainTreeOf(p *FoldProblem) *plainNode {
	plainCache.Lock()
	defer plainCache.Unlock()
	if plainCache.root != nil && plainCache.p == *p {
		return plainCache.root
	}
	plainCache.root = nil // let the last tree go before building the next
	var build func(n int) *plainNode
	build = func(n int) *plainNode {
		nd := &plainNode{id: n}
		first, count := childRange(p, n)
		if count > 0 {
			nd.kids = make([]*plainNode, 0, count)
		}
		for c := first; c < first+count; c++ {
			nd.kids = append(nd.kids, build(c))
		}
		return nd
	}
	plainCache.p, plainCache.root = *p, build(0)
	return plainCache.root
}

// childRange is the range of the children of n in p, without the children
// work of FoldProblem.Children.
func childRange(p *FoldProblem, n int) (first, count int) {
	q := *p
	q.Work.Children = 0
	return q.Children(n)
}
