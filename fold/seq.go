package fold

import "github.com/forkjoin-go/forkjoin/tree"

// frame is a node in progress: its heap, and its segment of the kidStack,
// kids[start:], whose children from next on are still to enter.
type frame[H any] struct {
	h           H
	start, next int
}

// Seq runs f over the tree below root on the calling goroutine and returns
// the root's result.
//
// It walks depth-first with explicit stacks instead of recursion, so the
// depth of the tree is limited only by memory: memory in use is one frame
// (a heap and two ints) per node on the current path plus one slot per
// child of those nodes not yet entered. A node's children are collected into a reused
// buffer when the node is entered (after its Init), so a children function
// that streams is run to its end before the node's first child is folded.
// Seq allocates nothing per node itself.
//
// Seq panics with an error wrapping ErrNilFunc if a callback or g is nil. A
// panic in a callback or in g propagates unchanged.
func Seq[N, H, R any](f Fold[N, H, R], g tree.Treeish[N], root N) R {
	if err := check(f, g); err != nil {
		panic(err)
	}
	init, acc, fin := f.Init, f.Accumulate, f.Finalize
	ks := newKidStack[N]()
	fs := newFrameStack[frame[H]]()
	spare := new(frame[H])
	top := fs.push(frame[H]{h: init(root)})
	g(root, ks.push)
	for {
		if top.next < len(ks.kids) {
			c := ks.take(top.start, &top.next)
			at := fs.slot(spare)
			start := len(ks.kids)
			*at = frame[H]{h: init(c), start: start, next: start}
			g(c, ks.push)
			if len(ks.kids) > start {
				top = fs.commit(at, spare)
				continue
			}
			r := fin(&at.h) // a leaf: finalised in place, never pushed
			*at = frame[H]{}
			acc(&top.h, r)
			continue
		}
		r := fin(&top.h)
		ks.kids = ks.kids[:top.start] // the node's segment, all taken
		if top = fs.pop(); top == nil {
			return r
		}
		acc(&top.h, r)
	}
}
