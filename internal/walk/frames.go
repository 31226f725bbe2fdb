package walk

import "math/bits"

// frameStack is a walk's stack of frames, stored in chunks that never
// move: a deep path costs no copying as it grows (a 10^6-deep chain
// would otherwise copy and clear its frames again at every doubling, and
// the collector rescan them), and a pointer to a frame stays valid while
// the frame is on the stack. Chunk c holds minChunk<<c frames up to
// maxChunk, so the frame at any index is found by arithmetic. Chunks are
// kept for the walk state's next use; every slot above the top is zero.
type frameStack[F any] struct {
	cur    []F   // the top chunk, up to and including the top frame
	base   int   // the index of cur[0]
	chunks [][]F // every chunk made, each at its full length
	ci     int   // chunks[ci] backs cur
}

const (
	chunkShift = 4                              // minChunk = 1 << chunkShift
	chunkGrow  = 10                             // chunks double this many times
	minChunk   = 1 << chunkShift                // frames in chunk 0
	maxChunk   = minChunk << chunkGrow          // frames in chunk chunkGrow and after
	geomEnd    = minChunk<<chunkGrow - minChunk // frames in chunks 0..chunkGrow-1
)

// chunkLen is the number of frames of chunk c.
func chunkLen(c int) int { return minChunk << min(c, chunkGrow) }

// len returns the number of frames on the stack.
func (s *frameStack[F]) len() int { return s.base + len(s.cur) }

// top returns the top frame; the stack must not be empty.
func (s *frameStack[F]) top() *F { return &s.cur[len(s.cur)-1] }

// push adds a frame on top and returns it: its slot is zero.
// The caller calls nextChunk first if full: push itself has no call, so
// that it inlines.
func (s *frameStack[F]) push() *F {
	n := len(s.cur)
	s.cur = s.cur[:n+1]
	return &s.cur[n]
}

// full reports whether push needs nextChunk first.
func (s *frameStack[F]) full() bool { return len(s.cur) == cap(s.cur) }

// nextChunk makes the chunk after the current one (full, or none yet) the
// current one, empty.
func (s *frameStack[F]) nextChunk() {
	if n := len(s.cur); s.chunks != nil && n > 0 {
		s.base += n
		s.ci++
	}
	if s.ci == len(s.chunks) {
		s.chunks = append(s.chunks, make([]F, chunkLen(s.ci)))
	}
	s.cur = s.chunks[s.ci][:0]
}

// pop zeroes and removes the top frame, so that its heap is released.
func (s *frameStack[F]) pop() {
	n := len(s.cur) - 1
	var zero F
	s.cur[n] = zero
	s.cur = s.cur[:n]
	if n == 0 && s.ci > 0 {
		s.prevChunk()
	}
}

// prevChunk makes the chunk below the current, emptied one the current
// one (it is full).
func (s *frameStack[F]) prevChunk() {
	s.ci--
	s.cur = s.chunks[s.ci]
	s.base -= len(s.cur)
}

// at returns the frame at index i (0 is the bottom), which must be on the
// stack.
func (s *frameStack[F]) at(i int) *F {
	if i >= s.base {
		return &s.cur[i-s.base]
	}
	var c, off int
	if i < geomEnd {
		c = bits.Len(uint(i>>chunkShift)+1) - 1
		off = i - (minChunk<<c - minChunk)
	} else {
		c = chunkGrow + (i-geomEnd)/maxChunk
		off = (i - geomEnd) % maxChunk
	}
	return &s.chunks[c][off]
}

// capacity returns the number of frames the chunks made can hold.
func (s *frameStack[F]) capacity() int {
	n := 0
	for c := range s.chunks {
		n += chunkLen(c)
	}
	return n
}

// reset empties a stack whose frames were all popped, keeping its chunks.
func (s *frameStack[F]) reset() {
	s.ci, s.base = 0, 0
	s.cur = nil
	if s.chunks != nil {
		s.cur = s.chunks[0][:0]
	}
}

// AppendKids appends kids to buf, like append(buf, kids...), copying a few
// element by element: the runtime's typed copy behind append costs more
// than a short loop, and most nodes have few children (a chain, one).
func AppendKids[N any](buf, kids []N) []N {
	if len(kids) > 4 {
		return append(buf, kids...)
	}
	for _, c := range kids {
		buf = append(buf, c)
	}
	return buf
}
