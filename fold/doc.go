// Package fold computes a result over a tree bottom-up: a recursive fold
// described by three callbacks.
//
//	type Fold[N, H, R any] struct {
//		Init       func(n N) H             // start node n's heap
//		Accumulate func(h *H, child R)     // add one child's result
//		Finalize   func(h *H) R            // turn the heap into n's result
//	}
//
// For every node the executor calls Init to make the node's heap H, then
// Accumulate once per child with that child's result, in the order the
// children function (a tree.Treeish) gives the children, then Finalize,
// whose result is passed to the parent's Accumulate, or returned for the
// root. A heap is used by one call at a time and dropped once finalised, so
// callbacks need no locks and folds that depend on child order (lists,
// strings, order-sensitive hashes) are safe. The *H passed to a callback is
// valid only during that call.
//
// Seq runs a fold on the calling goroutine. It recurses on the goroutine
// stack for the first 128 levels, like hand-written code, and continues
// below them with explicit stacks of frames, so a 10^6-deep chain works; it
// allocates nothing per node beyond what the callbacks allocate.
//
// SeqErr runs a FoldErr, whose callbacks may fail; the first error stops
// the fold and is returned unchanged. SeqDAG runs a fold over a graph in
// which several parents may share a child: it computes each distinct key
// once and reports a cycle with a *CycleError. Run, RunCtx, RunErr and
// RunDAG are the parallel executors, with the same results.
//
// Folds compose: Product runs two folds in one pass, Contramap changes the
// node type, Wrap puts hooks around the callbacks, and Finish maps the
// root's result. Sum, Size, Depth and PreOrder are ready-made.
//
// A panic in a callback or in the children function propagates out of the
// sequential executors unchanged, with the stack where it happened.
//
// # Fold or fork
//
// A fold reaches its callbacks through function values: Init, the
// children function, Accumulate and Finalize, none of which the compiler
// can inline. Give the children as a slice (tree.FromSlice): the executors
// read it in place, where a children function that yields them costs one
// more call per child. That floor is about 9 ns per node on a binary tree
// on the 2-core machine of docs/BENCHMARKS.md, where the recursion a Go
// programmer writes over a tree of pointer nodes (h := n.Val; for each
// child h += sum(c)) takes 3.7 ns, and the same recursion with a
// forkjoin.Fork at every node runs at two workers in 0.5–0.75× that.
// Measured on a binary tree of 10^5 nodes with work added to every node,
// Run at parallelism 2 overtakes the plain recursion at about 4 ns of
// work per node (1.14× it at 2.2 ns, 0.95× at 4.6 ns), and stays
// 1.1–2.3× slower than the fork up to 60 ns. So for a cheap reduce over
// an in-memory tree (a sum, a count, a maximum), write the recursion with
// a Fork; use a fold when a node does more than a few tens of nanoseconds
// of work, or when you need what only the fold gives:
// a children function that streams (a directory listing), depth beyond
// the goroutine stack, child-order accumulation with no locks, RunDAG's
// shared children, cancellation. docs/tuning.md has the figures.
//
// See docs/folds.md in the repository for the model and the choices made.
package fold
