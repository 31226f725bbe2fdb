// Package typepool keeps one sync.Pool per type: the folds' executors keep
// their spare stacks there, between calls and between pools.
package typepool

import (
	"reflect"
	"sync"
)

var pools sync.Map // reflect.Type of T -> *sync.Pool

// For returns the sync.Pool of type T, the same one at every call: a
// generic function cannot have a variable of its own per instantiation,
// so the pools are found by type.
func For[T any]() *sync.Pool {
	t := reflect.TypeFor[T]()
	if p, ok := pools.Load(t); ok {
		return p.(*sync.Pool)
	}
	p, _ := pools.LoadOrStore(t, new(sync.Pool))
	return p.(*sync.Pool)
}
