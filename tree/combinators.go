package tree

import (
	"sync"
	"sync/atomic"
)

// Filter returns a Treeish that yields only the children c of a node for
// which keep(c) is true. A dropped child's subtree disappears with it. The
// root itself is never tested: it is whatever the walk starts from.
func Filter[N any](g Treeish[N], keep func(child N) bool) Treeish[N] {
	mustFuncs("Filter", []string{"g", "keep"}, g.IsZero(), keep == nil)
	return Treeish[N]{each: func(n N, yield func(N) bool) {
		g.each(n, func(c N) bool {
			if !keep(c) {
				return true
			}
			return yield(c)
		})
	}}
}

// Map returns a Treeish over M for a Treeish over N, given a mapping both
// ways: the children of m are to(c) for each child c of from(m).
//
// from(to(n)) must stand for n as far as g is concerned; typically to wraps
// or annotates a node and from unwraps it.
func Map[N, M any](g Treeish[N], to func(N) M, from func(M) N) Treeish[M] {
	mustFuncs("Map", []string{"g", "to", "from"}, g.IsZero(), to == nil, from == nil)
	return Treeish[M]{each: func(m M, yield func(M) bool) {
		g.each(from(m), func(c N) bool { return yield(to(c)) })
	}}
}

// Contramap returns a Treeish over M for a Treeish over N, where a child's
// M value is built from its parent's M and its own N: the children of m are
// lift(m, c) for each child c of project(m).
//
// Unlike Map, information flows down the tree: lift can record a depth, the
// path from the root or an inherited environment in the child.
func Contramap[N, M any](g Treeish[N], project func(M) N, lift func(parent M, child N) M) Treeish[M] {
	mustFuncs("Contramap", []string{"g", "project", "lift"}, g.IsZero(), project == nil, lift == nil)
	return Treeish[M]{each: func(m M, yield func(M) bool) {
		g.each(project(m), func(c N) bool { return yield(lift(m, c)) })
	}}
}

// Memoize returns a Treeish that calls g at most once per key: the first
// call for a node collects all of its children (even if the caller stops
// early) and stores them under key(n); later calls for any node with the
// same key yield the stored children. Concurrent first calls for one key
// wait for a single call of g. If g panics, nothing is stored for the key
// and the next call tries again.
//
// The returned Treeish gives the stored children as a slice, which the
// executors read in place (as from FromSlice), and is safe for concurrent
// use. Its cache keeps one entry (the key, a small header and the children
// slice) for every distinct key it has listed, for as long as the returned
// Treeish is reachable; there is no eviction. Drop the Treeish to free the cache, and make a new one per
// walk when the tree may change between walks.
//
// g must not call the memoized Treeish for the same key from inside itself,
// nor, through other keys, in a circle (g for a consulting b while g for b
// consults a): a key being listed makes the others that want it wait, so
// two such listings on two goroutines wait for each other for ever.
func Memoize[N any, K comparable](g Treeish[N], key func(N) K) Treeish[N] {
	mustFuncs("Memoize", []string{"g", "key"}, g.IsZero(), key == nil)
	var cache sync.Map // K -> *memoEntry[N]
	kids := func(n N) []N {
		k := key(n)
		var e *memoEntry[N]
		if v, ok := cache.Load(k); ok {
			e = v.(*memoEntry[N])
		} else {
			v, _ := cache.LoadOrStore(k, new(memoEntry[N]))
			e = v.(*memoEntry[N])
		}
		if !e.ready.Load() {
			e.fill(g, n)
		}
		return e.kids
	}
	// The stored children are a slice: the memoized Treeish is one made by
	// FromSlice, which the executors read without a call per child.
	return FromSlice(kids)
}

type memoEntry[N any] struct {
	ready atomic.Bool
	mu    sync.Mutex
	kids  []N
}

func (e *memoEntry[N]) fill(g Treeish[N], n N) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ready.Load() {
		return
	}
	var kids []N
	g.each(n, func(c N) bool {
		kids = append(kids, c)
		return true
	})
	e.kids = kids[:len(kids):len(kids)]
	e.ready.Store(true)
}

// TraceHooks are the callbacks of Trace. Nil fields are skipped. They are
// called on the goroutine that lists the node's children and must be safe
// for concurrent use when the traced Treeish is walked in parallel.
type TraceHooks[N any] struct {
	// Node is called when the children of n are about to be listed.
	Node func(n N)
	// Child is called for each child before it is passed on; i counts the
	// children of parent from 0.
	Child func(parent, child N, i int)
	// Done is called when listing the children of n ends; yielded is the
	// number of children passed on, and stopped is true when the caller
	// asked for no more.
	Done func(n N, yielded int, stopped bool)
}

// Trace returns a Treeish that behaves like g and calls hooks as it lists
// children, for logging, counting and profiling walks.
func Trace[N any](g Treeish[N], hooks TraceHooks[N]) Treeish[N] {
	mustFuncs("Trace", []string{"g"}, g.IsZero())
	return Treeish[N]{each: func(n N, yield func(N) bool) {
		if hooks.Node != nil {
			hooks.Node(n)
		}
		i, stopped := 0, false
		g.each(n, func(c N) bool {
			if hooks.Child != nil {
				hooks.Child(n, c, i)
			}
			i++
			if !yield(c) {
				stopped = true
				return false
			}
			return true
		})
		if hooks.Done != nil {
			hooks.Done(n, i, stopped)
		}
	}}
}
