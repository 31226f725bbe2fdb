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
// at parallelism 1 and on a single processor. When a check fails, rapid
// shrinks the input and Check fails the test with the smallest failing
// root it found (drawn values are printed with %#v: *Node prints its
// shape).
//
// CheckDAG does the same for fold.RunDAG against fold.SeqDAG on graphs
// with shared nodes, where each key is initialised once.
package foldtest
