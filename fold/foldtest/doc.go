// Package foldtest is a property-test kit for folds, built on
// pgregory.net/rapid: random tree and DAG shapes, and checkers that run a
// fold with the parallel executors at random parallelism, with work handed
// between participants on purpose, and compare it with the sequential
// executor while they watch the calling contract.
//
// A property test of a fold over the kit's own nodes takes a few lines:
//
//	func TestMyFold(t *testing.T) {
//		foldtest.Check(t, myFold, foldtest.Children, foldtest.Trees(300), nil)
//	}
//
// For a fold over your own node type, draw a shape and build your nodes
// from it with Build, through rapid.Map:
//
//	gen := rapid.Map(foldtest.Trees(300), func(n *foldtest.Node) *Dir {
//		return foldtest.Build(n, func(label int, kids []*Dir) *Dir {
//			return &Dir{Size: int64(label), Subdirs: kids}
//		})
//	})
//	foldtest.Check(t, sizeFold, subdirs, gen, nil)
//
// What Check verifies, on every drawn root:
//
//   - fold.Run (or fold.RunCtx) on a pool of random parallelism from 1 to
//     64 returns what fold.Seq returns;
//   - Init and Finalize run once per node, Accumulate once per child, in
//     the order the children function yields the children, after the
//     node's Init and before its Finalize;
//   - no two calls run at once on one heap.
//
// The schedule is randomised: in most runs the walk is made to hand work
// to other participants at random nodes, as if they had asked for it, so
// the paths that move work between goroutines run on every example even
// at parallelism 1 and on a single processor.
//
// When a check fails, rapid shrinks the input and Check fails the test
// with the smallest failing root it found. A *Node root is printed as its
// shape, "foldtest tree of 4 nodes: 0(1(2) 3)". For any other node type,
// Check logs the root as a tree numbered in pre-order as the children
// function lists it, which for a root made by Build are the labels of
// the drawn Node, and what each node holds besides its children (its
// String, or its fields but those holding nodes); messages name nodes by
// these numbers. Besides a wrong result or a breach of the contract, the
// failure names two mistakes of the fold's own:
//
//   - a children function that lists a node's children differently from
//     one call to the next (Check lists them more than once);
//   - a heap kept past its call: the *H a callback receives is valid only
//     during that call, and the executors reuse a heap's memory once it is
//     finalised. Check reports, with the node, a Finalize result that
//     points into its heap and a heap written between the calls on it or
//     after its Finalize; and a sequential result that changes when every
//     heap gets memory of its own.
//
// CheckDAG does the same for fold.RunDAG against fold.SeqDAG on graphs
// with shared nodes, where each key is initialised once.
package foldtest
