// Package tree describes trees by their children function and walks them.
//
// A tree is never a data structure here: it is a Treeish, which gives the
// children of a node, in order. Make one from the form the children come
// in:
//
//   - FromSlice, from a function returning a node's children as a slice
//     (n.Kids): the fastest form, which the walks and folds read in place,
//     with no call per child;
//   - FromIter, from a function returning an iter.Seq;
//   - FromFunc, from a function that yields the children to a callback,
//     func(n N, yield func(child N) bool), and stops as soon as yield
//     returns false: a children function can then stream children it
//     discovers one by one (lines of a file, entries of a directory, rows
//     of a query) without building a slice, and a walk can stop early.
//
// Reshape a Treeish with the combinators:
//
//   - Filter drops children (and so their subtrees);
//   - Map changes the node type where a mapping both ways is given;
//   - Contramap changes the node type where a child's new value may depend
//     on its parent's (to carry depth, a path, an environment down the tree);
//   - Memoize caches each node's children list under a key, for expensive
//     children functions and for DAGs visited through several parents;
//   - Trace calls hooks for every node listed and child yielded.
//
// The sequential walks WalkSeq, All, CountSeq and FindSeq visit the nodes in
// pre-order with an explicit stack, so a 10^6-deep chain does not grow the
// goroutine's stack; Walk, WalkCtx, Count and Find are their parallel
// counterparts on a pool. AppendChildren collects a node's children into a
// slice.
//
// # Concurrency
//
// A Treeish may be called from several goroutines at the same time by the
// parallel walks and folds, each call for a different (or the same) node.
// The functions given to FromSlice, FromIter and the combinators must allow
// that; the combinators themselves add no shared state except Memoize,
// which is safe for concurrent use.
//
// # Cost
//
// A combinator wraps the yield callback it receives in a new closure, and
// Go allocates that closure on the heap because the wrapped Treeish is an
// unknown function: one small allocation per node listed through Filter,
// Map, Contramap or Trace. FromSlice, FromIter and Memoize (once its cache is
// warm) allocate nothing per node themselves (an iter.Seq returned by the
// function given to FromIter is usually a closure, which is the caller's
// allocation).
package tree
