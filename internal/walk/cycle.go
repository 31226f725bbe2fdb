package walk

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"unsafe"
)

// ErrCycle is wrapped by the panic of a walk or fold whose children
// function reaches a node again below itself: the tree it describes is
// infinite, and walking it would take memory without bound.
var ErrCycle = errors.New("tree: the children function reaches a node again below itself (a cycle)")

// CycleFrom is the depth from which the executors look for a node that
// repeats on the current path, and CycleStride the step between two
// depths they look at: a node is given to CycleCheck.Enter when its depth
// d ≥ CycleFrom is a multiple of CycleStride. Above CycleFrom nothing is
// checked (a cycle costs at most this many frames more before it is
// found); below it, one node in CycleStride is compared.
const (
	CycleFrom   = 1 << 12
	CycleStride = 8
)

// CycleCheck finds a node that repeats on the path of a depth-first walk,
// Brent-style: the node entered at each power-of-two depth d ≥ CycleFrom
// is marked, and the nodes entered below it, down to depth 2d, at every
// CycleStride-th depth, are compared with the mark. A node is its own
// descendant exactly when the walk's path runs round a cycle for ever;
// once the path is on the cycle at a marked depth d and CycleStride times
// the cycle's length is at most d, the mark repeats at a compared depth
// before 2d. So a cycle of length L entered at depth e is found by depth
// 2·max(e, 8L, CycleFrom), at the cost of one comparison per eight nodes
// below CycleFrom.
//
// Two nodes are the same when their values are identical bit for bit
// (padding aside): a pointer to the same node, the same integer, the same
// string header. A children function must yield the same children for the
// same node, so a node identical to one of its ancestors starts the same
// infinite path again. Equal values with different bits (two strings with
// the same text in different memory, +0 and -0) are not taken for a
// repeat; such a cycle is found once it repeats a value bit for bit, or
// not at all.
type CycleCheck[N any] struct {
	mark  N
	probe N   // the node compared: a field, so that no local escapes
	depth int // mark's depth; 0 for no mark
	same  func(a, b *N) bool
}

// Enter notes that node n is entered at depth d (the root is at 0) on a
// path where every node between the mark and n is an ancestor of n; it
// panics with an error wrapping ErrCycle when n is the same as the mark.
// The caller calls it only for d ≥ CycleFrom, d a multiple of
// CycleStride.
func (c *CycleCheck[N]) Enter(n N, d int) {
	if err := c.EnterErr(n, d); err != nil {
		panic(err)
	}
}

// EnterErr is Enter for a caller that returns errors: it returns the
// error wrapping ErrCycle instead of panicking with it.
func (c *CycleCheck[N]) EnterErr(n N, d int) error {
	if d&(d-1) == 0 {
		c.mark, c.depth = n, d
		return nil
	}
	if c.depth == 0 || d < c.depth || d >= 2*c.depth {
		return nil // no mark on this path
	}
	if c.same == nil {
		c.same = identical[N]()
	}
	c.probe = n
	same := c.same(&c.probe, &c.mark)
	var zero N
	c.probe = zero
	if same {
		return fmt.Errorf("%w: node %v at depths %d and %d of one path", ErrCycle, n, c.depth, d)
	}
	return nil
}

// Reset drops the mark, so that it keeps no node reachable.
func (c *CycleCheck[N]) Reset() {
	var zero N
	c.mark, c.depth = zero, 0
}

// identical returns a function that reports whether two values of N have
// the same bits outside padding. It reads a value's memory as bytes (or,
// for 8 bytes of data, as one uint64): unsafe.Pointer's rule (1), the
// bytes being no larger than the value and plain memory, and rule (3)
// for the offsets, which stay inside the value (bitsOf). It only
// compares: no pointer of N is kept as bits.
func identical[N any]() func(a, b *N) bool {
	size := unsafe.Sizeof(*new(N))
	spans := dataSpans(reflect.TypeFor[N](), 0, nil)
	switch {
	case len(spans) == 1 && spans[0] == [2]uintptr{0, size} && size == 8:
		return func(a, b *N) bool { return *(*uint64)(unsafe.Pointer(a)) == *(*uint64)(unsafe.Pointer(b)) }
	case len(spans) == 1 && spans[0] == [2]uintptr{0, size}:
		return func(a, b *N) bool { return bytes.Equal(bitsOf(a, 0, size), bitsOf(b, 0, size)) }
	}
	return func(a, b *N) bool {
		for _, s := range spans {
			if !bytes.Equal(bitsOf(a, s[0], s[1]), bitsOf(b, s[0], s[1])) {
				return false
			}
		}
		return true
	}
}

// bitsOf returns the bytes [from, to) of *v.
func bitsOf[N any](v *N, from, to uintptr) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(v), from)), to-from)
}

// dataSpans appends to spans the byte ranges [from, to) of a value of type
// t at offset off that hold data (not padding), merging adjacent ones.
func dataSpans(t reflect.Type, off uintptr, spans [][2]uintptr) [][2]uintptr {
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			spans = dataSpans(f.Type, off+f.Offset, spans)
		}
		return spans
	case reflect.Array:
		for i := range t.Len() {
			spans = dataSpans(t.Elem(), off+uintptr(i)*t.Elem().Size(), spans)
		}
		return spans
	}
	if t.Size() == 0 {
		return spans
	}
	if n := len(spans); n > 0 && spans[n-1][1] == off {
		spans[n-1][1] = off + t.Size()
		return spans
	}
	return append(spans, [2]uintptr{off, off + t.Size()})
}
