package forkjoin

// Word forks.
//
// When A is one machine word (a pointer, a map, a channel, a function, or
// a number of at most 8 bytes), the argument does not go into a slot: the
// fork writes it into its entry on the private stack, beside a pointer to
// the Fork's wordFork, and takes a slot (from the slab's free list) only if
// a thief's request publishes the entry. That is two stores per fork where
// a slot costs a slab lookup, a bump and a store more; tree-sum and fib
// fork on pointers and ints.

import (
	"reflect"
	"unsafe"
)

// wordFork is how a word fork's entry is published: publish moves the
// argument into a slot, records the slot in the entry and returns it.
// Each Fork has one (Fork.word); an entry points to it, which keeps the
// Fork alive while the entry is on the stack.
type wordFork struct {
	publish func(w *Worker, e *forkEntry) *task
}

// The shapes of a word fork's argument (Fork.wordShape).
const (
	wordPointer = 1 + iota // a pointer, map, channel, function or unsafe.Pointer
	wordScalar             // a number or bool of at most one word
)

// wordShapeOf tells whether A fits in one machine word, and how.
func wordShapeOf[A any]() uint8 {
	t := reflect.TypeFor[A]()
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return wordPointer
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64:
		if t.Size() <= unsafe.Sizeof(uintptr(0)) {
			return wordScalar
		}
	}
	return 0
}

// pushWord writes a word fork of f with argument a into the entry e: wf
// and the field of a's shape. A pointer-shaped a goes into ptr as a
// pointer (forkHeadOf), a scalar one into arg as its bits.
//
// The branch taken is fixed by A: NewFork sets wordShape from A's type
// (wordShapeOf), so each instantiation runs only the branch of its own
// shape, and never stores a number in a pointer field or a pointer in arg.
func (f *Fork[A, R]) pushWord(e *forkEntry, a A) {
	if f.wordShape == wordPointer {
		// Both stores in one composite literal: the compiler checks the
		// write barrier once for the two pointers.
		*(*forkHeadOf[A])(unsafe.Pointer(e)) = forkHeadOf[A]{&f.word, a}
	} else {
		e.wf, e.arg = &f.word, scalarBits(a)
	}
}

// forkHeadOf[A] is the first two fields of a forkEntry, wf and ptr, with
// ptr typed as A. For a pointer-shaped A (a pointer, map, channel,
// function or unsafe.Pointer: one pointer word; see wordShapeOf) it has
// forkEntry's layout there, so a *forkEntry converts to a *forkHeadOf[A]
// (unsafe.Pointer's rule (1): the two share their memory layout where
// they overlap), and storing a into ptr is a store of a pointer into a
// pointer field, with the write barrier the collector needs. Only forks
// of such an A use it.
type forkHeadOf[A any] struct {
	wf  *wordFork
	ptr A
}

// forkHeadOf's ptr lies where forkEntry's does: a negative array length
// does not compile, so the two differences below are both 0.
var (
	_ [unsafe.Offsetof(forkEntry{}.ptr) - unsafe.Offsetof(forkHeadOf[*byte]{}.ptr)]struct{}
	_ [unsafe.Offsetof(forkHeadOf[*byte]{}.ptr) - unsafe.Offsetof(forkEntry{}.ptr)]struct{}
)

// pointerArg reads back a pointer-shaped argument from e.ptr (the
// conversion is forkHeadOf's: unsafe.Pointer's rule (1)).
func pointerArg[A any](e *forkEntry) A {
	return (*forkHeadOf[A])(unsafe.Pointer(e)).ptr
}

// scalarBits returns the bits of a scalar argument: A is a number or a
// bool of at most one word (wordShapeOf), so it fits in u, and has no
// pointer to hide. Writing it through *A is unsafe.Pointer's rule (1):
// A is no larger than uintptr, and both are plain memory.
func scalarBits[A any](a A) uintptr {
	var u uintptr
	*(*A)(unsafe.Pointer(&u)) = a
	return u
}

// scalarArg reads back a scalar argument from e.arg (rule (1), as
// scalarBits).
func scalarArg[A any](e *forkEntry) A {
	return *(*A)(unsafe.Pointer(&e.arg))
}

// publishWord moves a word fork's argument a into a slot, for a thief:
// the entry e records the slot.
func (f *Fork[A, R]) publishWord(w *Worker, e *forkEntry, a A) *task {
	slot := slabOf[A, R](w, f.slabID).takeFree()
	slot.fork = f
	slot.hdr.exec = f.exec
	slot.arg = a
	e.hdr = &slot.hdr
	return &slot.hdr
}
