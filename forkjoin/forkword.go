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

// wordPtr returns the bits a word fork of f stores in its entry.
func wordPtr(wf *wordFork) uintptr { return uintptr(unsafe.Pointer(wf)) }

// wordFork is how a word fork's entry is published: publish moves the
// argument into a slot, records the slot in the entry and returns it.
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

// wordBits returns the bits of a word fork's argument: A is at most one
// word (wordShapeOf checked its shape), so it fits in u.
func wordBits[A any](b A) uintptr {
	var u uintptr
	*(*A)(unsafe.Pointer(&u)) = b
	return u
}

// wordArg reads back the argument a fork wrote into e.arg.
func wordArg[A any](e *forkEntry) A {
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
