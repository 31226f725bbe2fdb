package fold

import (
	"fmt"
	"strings"

	"github.com/forkjoin-go/forkjoin/tree"
)

// CycleError reports that a graph folded as a DAG has a cycle. Key is the
// key of a node on the cycle (the node that was reached again while it was
// still being folded). Cycle lists the keys of the cycle starting at Key,
// each node followed by one of its children and the last one's child being
// Key again.
type CycleError[K comparable] struct {
	Key   K
	Cycle []K
}

// cycleShown is how many keys of a cycle its error message lists.
const cycleShown = 8

// Error names a node of the cycle and spells the cycle out, from that node
// back to it ("a → b → c → a"); a cycle longer than cycleShown keys is
// cut short, with its length.
func (e *CycleError[K]) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fold: cycle in graph: node %v reaches itself: ", e.Key)
	for i, k := range e.Cycle {
		if i == cycleShown {
			fmt.Fprintf(&b, "… (%d nodes in all) → ", len(e.Cycle))
			break
		}
		fmt.Fprintf(&b, "%v → ", k)
	}
	fmt.Fprintf(&b, "%v", e.Key)
	return b.String()
}

// dagFrame is a node in progress in SeqDAG: its heap, its segment of the
// kidStack (as in frame) and its entry in the results.
type dagFrame[H any] struct {
	h           H
	start, next int
	slot        int
}

// dagEntry is the state of a key: being folded (done false: its node is on
// the current path) or finished with result r.
type dagEntry[R any] struct {
	r    R
	done bool
}

// SeqDAG runs f over the directed acyclic graph below root on the calling
// goroutine, like Seq, except that nodes with equal keys are one node: each
// distinct key is initialised, accumulated and finalised once (from the
// first node with that key the walk reaches), and its result is passed to
// the Accumulate of every parent that lists a node with that key, in each
// parent's child order. Since one result may be accumulated into several
// parents, Accumulate must not modify what a child's result points to.
//
// If the graph has a cycle, SeqDAG stops when it finds it and returns a
// *CycleError[K] naming a node on the cycle. Results are kept for every
// key until SeqDAG returns (any later parent may need them), with a map
// entry per key; heaps are released once finalised, as in Seq.
//
// A nil callback or key, or the zero g, panics with an error wrapping
// ErrNilFunc. A panic in a callback, g or key propagates unchanged.
func SeqDAG[N, H, R any, K comparable](f Fold[N, H, R], g tree.Treeish[N], root N, key func(N) K) (R, error) {
	var zero R
	mustCheck("fold.SeqDAG", f, g)
	mustNotNil("fold.SeqDAG", []string{"key"}, key == nil)
	init, acc, fin := f.Init, f.Accumulate, f.Finalize
	slots := make(map[K]int)          // key -> index in results
	results := make([]dagEntry[R], 1) // by slot; the root's is 0
	ks := newKidStack[N]()
	fs := newFrameStack[dagFrame[H]]()
	slots[key(root)] = 0
	top := fs.push(dagFrame[H]{h: init(root)})
	ks.list(g, root)
	for {
		if top.next < len(ks.kids) {
			c := ks.take(top.start, &top.next)
			k := key(c)
			if i, ok := slots[k]; ok {
				if !results[i].done {
					return zero, cycleError(&fs, slots, i, k)
				}
				acc(&top.h, results[i].r)
				continue
			}
			slot := len(results)
			slots[k] = slot
			results = append(results, dagEntry[R]{})
			start := len(ks.kids)
			top = fs.push(dagFrame[H]{h: init(c), start: start, next: start, slot: slot})
			ks.list(g, c)
			continue
		}
		r := fin(&top.h)
		results[top.slot] = dagEntry[R]{r: r, done: true}
		ks.kids = ks.kids[:top.start]
		if top = fs.pop(); top == nil {
			return r, nil
		}
		acc(&top.h, r)
	}
}

// cycleError builds the error for reaching k (whose slot is slot) again
// while the frames hold the current path: the cycle is the path from k's
// frame to the top.
func cycleError[H any, K comparable](fs *frameStack[dagFrame[H]], slots map[K]int, slot int, k K) *CycleError[K] {
	path := fs.all()
	i := len(path) - 1
	for i > 0 && path[i].slot != slot {
		i--
	}
	path = path[i:]
	keyOf := make(map[int]K, len(path))
	for _, fr := range path {
		keyOf[fr.slot] = k
	}
	for kk, s := range slots { // only the cycle's slots are looked up
		if _, on := keyOf[s]; on {
			keyOf[s] = kk
		}
	}
	cycle := make([]K, len(path))
	for j, fr := range path {
		cycle[j] = keyOf[fr.slot]
	}
	return &CycleError[K]{Key: k, Cycle: cycle}
}
