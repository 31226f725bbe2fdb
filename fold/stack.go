package fold

import (
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/tree"
)

// The sequential executors keep two explicit stacks instead of recursing:
//
//   - a kidStack of the children listed for the nodes on the current path,
//     each node's children in one segment, in the order the Treeish yields
//     them;
//   - a frameStack of the nodes on the current path, each frame holding
//     the node's heap and its segment of the kidStack, kids[start:...):
//     next is the next child to enter. The top frame's segment always ends
//     at the top of the kidStack, so its end needs no field.
//
// While the top frame has children left, the next one is taken (its slot in
// the kidStack cleared; taking the last one cuts the segment away at once,
// so a chain keeps one slot in use, not one per level), initialised and its
// children listed on top of the kidStack. A child with no children is
// finalised at once in the slot above the top frame and accumulated,
// without being pushed; otherwise its frame is pushed. When the top frame
// has no child left, it is finalised, its segment cut away, the frame
// popped (and zeroed, releasing the heap) and the result accumulated into
// the new top.

// kidStack holds the children listed for the nodes on the path. push is the
// callback given to the Treeish; it is built once per run, so listing a
// node's children allocates nothing once the slice has grown to its widest.
type kidStack[N any] struct {
	kids []N
	push func(N) bool
}

func newKidStack[N any]() *kidStack[N] {
	s := &kidStack[N]{kids: make([]N, 0, 64)}
	s.push = func(c N) bool {
		s.kids = append(s.kids, c)
		return true
	}
	return s
}

// list pushes the children of n, in order: copied from g's slice when g
// has one, else yielded to push.
func (s *kidStack[N]) list(g tree.Treeish[N], n N) {
	if slice := g.SliceFunc(); slice != nil {
		s.kids = walk.AppendKids(s.kids, slice(n))
		return
	}
	g.Each(n, s.push)
}

// take returns the next child of the segment kids[start:] and advances
// *next. It clears the child's slot, so that the stack keeps no entered
// child reachable, and cuts the segment away when it was the last child.
func (s *kidStack[N]) take(start int, next *int) N {
	i := *next
	c := s.kids[i]
	var zero N
	s.kids[i] = zero
	if i+1 == len(s.kids) {
		s.kids = s.kids[:start]
		*next = start
	} else {
		*next = i + 1
	}
	return c
}

// frameStack is a stack of frames stored in chunks that never move, so a
// deep path costs no copying as the stack grows and a pointer to a frame
// stays valid while the frame is on the stack. Chunks are kept for reuse
// until the run ends.
type frameStack[F any] struct {
	cur    []F   // the chunk holding the top frame, up to the top
	chunks [][]F // every chunk; chunks[ci] backs cur
	ci     int
}

const (
	firstChunk = 32
	maxChunk   = 1 << 14
)

func newFrameStack[F any]() frameStack[F] {
	c := make([]F, 0, firstChunk)
	return frameStack[F]{cur: c, chunks: [][]F{c}}
}

// push puts f on top and returns a pointer to it.
func (s *frameStack[F]) push(f F) *F {
	if len(s.cur) == cap(s.cur) {
		s.next()
	}
	s.cur = append(s.cur, f)
	return &s.cur[len(s.cur)-1]
}

// next moves to the chunk after the full current one, making it if needed.
func (s *frameStack[F]) next() {
	s.ci++
	if s.ci == len(s.chunks) {
		s.chunks = append(s.chunks, make([]F, 0, min(2*cap(s.cur), maxChunk)))
	}
	s.cur = s.chunks[s.ci][:0]
}

// slot returns the place for the next frame, without pushing it: the free
// slot above the top in the current chunk, or spare when the chunk is
// full. A leaf's frame lives and dies there; commit pushes it.
func (s *frameStack[F]) slot(spare *F) *F {
	if n := len(s.cur); n < cap(s.cur) {
		return &s.cur[:n+1][n]
	}
	return spare
}

// commit pushes the frame prepared at the pointer slot returned, and
// returns the new top.
func (s *frameStack[F]) commit(at, spare *F) *F {
	if at != spare {
		s.cur = s.cur[:len(s.cur)+1]
		return at
	}
	top := s.push(*spare)
	var zero F
	*spare = zero
	return top
}

// pop zeroes and removes the top frame. It returns the new top, or nil
// when the stack is empty.
func (s *frameStack[F]) pop() *F {
	last := len(s.cur) - 1
	var zero F
	s.cur[last] = zero
	s.cur = s.cur[:last]
	if last == 0 {
		if s.ci == 0 {
			return nil
		}
		s.ci--
		c := s.chunks[s.ci]
		s.cur = c[:cap(c)] // a chunk below the top one is full
	}
	return &s.cur[len(s.cur)-1]
}

// all returns pointers to the frames from the bottom to the top (for error
// reports).
func (s *frameStack[F]) all() []*F {
	var out []*F
	for i := 0; i <= s.ci; i++ {
		c := s.cur
		if i < s.ci {
			c = s.chunks[i][:cap(s.chunks[i])]
		}
		for j := range c {
			out = append(out, &c[j])
		}
	}
	return out
}
