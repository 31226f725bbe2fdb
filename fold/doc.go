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
// children function (a tree.Treeish) yields the children, then Finalize,
// whose result is passed to the parent's Accumulate, or returned for the
// root. A heap is used by one call at a time and dropped once finalised, so
// callbacks need no locks and folds that depend on child order (lists,
// strings, order-sensitive hashes) are safe. The *H passed to a callback is
// valid only during that call.
//
// Seq runs a fold on the calling goroutine. It keeps an explicit stack of
// frames (a frame is a node's heap and its position among its children),
// never recursing, so a 10^6-deep chain works, and it reuses its stacks, so
// it allocates nothing per node beyond what the callbacks allocate.
//
// SeqErr runs a FoldErr, whose callbacks may fail; the first error stops
// the fold and is returned unchanged. SeqDAG runs a fold over a graph in
// which several parents may share a child: it computes each distinct key
// once and reports a cycle with a *CycleError. Run, RunCtx, RunErr and
// RunDAG are the parallel executors, with the same results.
//
// Folds compose: Product runs two folds in one pass, Contramap changes the
// node type, Wrap puts hooks around the callbacks, and Finish maps the
// root's result. Sum, Count, Depth and PreOrder are ready-made.
//
// A panic in a callback or in the children function propagates out of the
// sequential executors unchanged, with the stack where it happened.
//
// See docs/folds.md in the repository for the model and the choices made.
package fold
