// Package testtree is the random-tree kit of forkjoin's tests: pointer
// trees and graphs of Node with rapid generators for many shapes, implicit
// integer trees of any size, folds whose results depend on child order with
// recursive references to compare executors against, and a checked fold
// wrapper that records every breach of the fold contract.
//
// Shapes (generators return *Graph):
//
//   - Balanced: a complete tree with a random branching factor;
//   - Skewed: a long spine with leaves hanging off it, the spine child
//     first (left-heavy) or last (right-heavy);
//   - Chain: a linked list;
//   - Wide: a root with very many children;
//   - Random: each node's parent drawn among the earlier nodes;
//   - DAG: a random DAG in which most nodes have several parents;
//   - Cyclic: a DAG with one back edge added, so it has a cycle.
//
// Folds: Sum, PreOrder, Brackets and Hash (see Kind), all over *Node with
// heap and result type Res, and Ref computes the same result by plain
// recursion. Check wraps any fold so that a Checker records contract
// violations, from any number of goroutines, and with Checker.Watch a
// heap kept past its call (heapwatch.go).
package testtree
