package testtree

import (
	"math"
	"reflect"
	"unsafe"
)

// A fold's callbacks receive a *H that is valid only during the call: the
// executors keep heaps in frames they reuse once a heap is finalised. A
// fold that keeps the pointer (returns it from Finalize, stores it in a
// result or a variable) reads or writes another node's heap later, and its
// answer depends on when frames are reused: it differs between executors
// and from run to run. The checked fold gives every heap its own
// allocation, which keeps such a pointer valid, and watches for the two
// traces a kept pointer leaves (with Checker.Watch):
//
//   - a result that points into its own node's heap, found by walking the
//     value Finalize returns (pointsInto);
//   - a heap that changes while no call on it runs: each call leaves a
//     shallow copy of the heap behind it (Heap.shadow), the next call and
//     Checker.CheckFinalized compare the heap with it (sameShallow).

// maxScan bounds the values pointsInto visits in one result.
const maxScan = 512

// pointsInto reports whether v, followed through pointers, interfaces,
// structs, arrays, slices and maps (up to maxScan values), holds a pointer
// into the size bytes that start at base. The addresses are compared as
// numbers only for the moment of the comparison, while v and base keep
// both objects alive.
func pointsInto(v reflect.Value, base unsafe.Pointer, size uintptr) bool {
	if size == 0 {
		return false
	}
	w := scan{lo: uintptr(base), size: size, seen: map[unsafe.Pointer]bool{}, budget: maxScan}
	return w.walk(v)
}

type scan struct {
	lo, size uintptr
	seen     map[unsafe.Pointer]bool
	budget   int
}

func (w *scan) inside(p unsafe.Pointer) bool { return uintptr(p)-w.lo < w.size }

func (w *scan) walk(v reflect.Value) bool {
	if w.budget--; w.budget < 0 || !v.IsValid() {
		return false
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return false
		}
		p := v.UnsafePointer()
		if w.inside(p) {
			return true
		}
		if w.seen[p] {
			return false
		}
		w.seen[p] = true
		return w.walk(v.Elem())
	case reflect.UnsafePointer:
		return w.inside(v.UnsafePointer())
	case reflect.Interface:
		return !v.IsNil() && w.walk(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if w.walk(v.Field(i)) {
				return true
			}
		}
	case reflect.Array:
		for i := range v.Len() {
			if w.walk(v.Index(i)) {
				return true
			}
		}
	case reflect.Slice:
		if v.Cap() > 0 && w.inside(v.UnsafePointer()) {
			return true
		}
		for i := range v.Len() {
			if w.walk(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if w.walk(it.Key()) || w.walk(it.Value()) {
				return true
			}
		}
	}
	return false
}

// sameShallow reports whether a and b, of one type, hold the same words:
// equal numbers, strings and booleans, the same pointers, and slices with
// the same array, length and capacity. What pointers point to is not
// compared: a heap that only refers to other memory is unchanged while
// that memory changes.
func sameShallow(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Complex64, reflect.Complex128:
		x, y := a.Complex(), b.Complex()
		return math.Float64bits(real(x)) == math.Float64bits(real(y)) && math.Float64bits(imag(x)) == math.Float64bits(imag(y))
	case reflect.String:
		return a.String() == b.String()
	case reflect.Pointer, reflect.UnsafePointer, reflect.Map, reflect.Chan, reflect.Func:
		return a.UnsafePointer() == b.UnsafePointer()
	case reflect.Slice:
		return a.UnsafePointer() == b.UnsafePointer() && a.Len() == b.Len() && a.Cap() == b.Cap()
	case reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return a.Elem().Type() == b.Elem().Type() && sameShallow(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameShallow(a.Field(i), b.Field(i)) {
				return false
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if !sameShallow(a.Index(i), b.Index(i)) {
				return false
			}
		}
	}
	return true
}
