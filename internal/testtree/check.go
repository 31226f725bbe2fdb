package testtree

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Checker records breaches of the fold contract seen by the folds Check
// wraps. It is safe for concurrent use: parallel executors call the wrapped
// callbacks from several goroutines.
type Checker[K comparable] struct {
	// OncePerKey makes a second Init for a key a violation (for DAG
	// executors, and for trees whose keys are unique).
	OncePerKey bool

	// Watch makes the checked fold look for a *H kept past its call (see
	// heapwatch.go): a result that points into its node's heap, a heap
	// that changes between the calls on it, and, in CheckFinalized, one
	// that changes after its Finalize. It keeps every finalised heap until
	// the Checker is dropped.
	Watch bool

	inits, finals atomic.Int64

	mu         sync.Mutex
	perKey     map[K]int
	violations []string
	dropped    int
	finalised  []func() string // with Watch: a violation of each finalised heap, or ""
}

// maxViolations bounds the violations kept; more are only counted.
const maxViolations = 50

// NewChecker returns an empty Checker.
func NewChecker[K comparable](oncePerKey bool) *Checker[K] {
	return &Checker[K]{OncePerKey: oncePerKey, perKey: map[K]int{}}
}

func (c *Checker[K]) violate(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.violations) < maxViolations {
		c.violations = append(c.violations, msg)
	} else {
		c.dropped++
	}
}

// Violations returns the violations recorded so far.
func (c *Checker[K]) Violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.violations...)
}

// Err returns nil if no violation was recorded, else an error listing them.
func (c *Checker[K]) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.violations) == 0 {
		return nil
	}
	msg := strings.Join(c.violations, "\n\t")
	if c.dropped > 0 {
		msg += fmt.Sprintf("\n\t… and %d more", c.dropped)
	}
	return errors.New("fold contract violated:\n\t" + msg)
}

// Inits returns the number of Init calls; Finals the number of Finalize
// calls. After a complete run they are equal.
func (c *Checker[K]) Inits() int64 { return c.inits.Load() }

// Finals returns the number of Finalize calls (see Inits).
func (c *Checker[K]) Finals() int64 { return c.finals.Load() }

// InitCount returns the number of Init calls for key k.
func (c *Checker[K]) InitCount(k K) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.perKey[k]
}

// Keys returns the number of distinct keys initialised.
func (c *Checker[K]) Keys() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.perKey)
}

// Complete returns Err, and also an error when some heap was initialised
// but never finalised: use it after a run that returned normally.
func (c *Checker[K]) Complete() error {
	if err := c.Err(); err != nil {
		return err
	}
	if i, f := c.Inits(), c.Finals(); i != f {
		return fmt.Errorf("fold contract violated: %d heaps initialised, %d finalised", i, f)
	}
	return nil
}

// CheckFinalized records, with Watch, every heap that changed after its
// Finalize returned: call it once the run has returned.
func (c *Checker[K]) CheckFinalized() {
	c.mu.Lock()
	checks := c.finalised
	c.finalised = nil
	c.mu.Unlock()
	for _, check := range checks {
		if msg := check(); msg != "" {
			c.violate("%s", msg)
		}
	}
}

// Heap is the heap of a checked fold: the wrapped fold's heap and the
// state the checks need.
type Heap[H any, K comparable] struct {
	Inner  H
	shadow H // with Watch: Inner as the last call on it left it
	key    K
	expect []K // keys of the children, in order
	accs   int
	inUse  atomic.Int32
	done   atomic.Int32
}

// Checked is the result of a checked fold: the wrapped fold's result and
// the key of the node it comes from.
type Checked[R any, K comparable] struct {
	Value R
	Key   K
	valid bool // made by Finalize
}

// Check wraps f so that c records every breach of the contract:
//
//   - Accumulate or Finalize on a heap no Init made;
//   - a call on a heap while another call on it is running (an in-use flag
//     set by compare-and-swap on entry, cleared on exit; the late call is
//     recorded and skipped, so the checker itself races on nothing);
//   - Accumulate after Finalize, or Finalize twice;
//   - children accumulated out of order (compared by key with the
//     children g lists at Init), or a result no Finalize made;
//   - a number of Accumulate calls other than the number of children;
//   - with OncePerKey, a second Init for a key;
//   - with Watch, a *H kept past its call: a Finalize result that points
//     into the node's heap, a heap that changes between calls on it, and
//     (CheckFinalized) one that changes after its Finalize.
//
// Init lists the node's children with g a second time to know what to
// expect, so g must be deterministic.
func Check[N, H, R any, K comparable](c *Checker[K], f fold.Fold[N, H, R], g tree.Treeish[N], key func(N) K) fold.Fold[N, *Heap[H, K], Checked[R, K]] {
	return fold.Fold[N, *Heap[H, K], Checked[R, K]]{
		Init: func(n N) *Heap[H, K] {
			k := key(n)
			c.inits.Add(1)
			c.mu.Lock()
			c.perKey[k]++
			again := c.perKey[k] > 1
			c.mu.Unlock()
			if again && c.OncePerKey {
				c.violate("node %v: Init called again for the same key", k)
			}
			h := &Heap[H, K]{key: k}
			g.Each(n, func(ch N) bool {
				h.expect = append(h.expect, key(ch))
				return true
			})
			h.Inner = f.Init(n)
			h.shadow = h.Inner
			return h
		},
		Accumulate: func(hp **Heap[H, K], child Checked[R, K]) {
			h := *hp
			if h == nil {
				c.violate("Accumulate on a heap no Init made (child %v)", child.Key)
				return
			}
			if !h.inUse.CompareAndSwap(0, 1) {
				// Leave the heap to the call inside it: touching it here
				// would be a data race of the checker's own.
				c.violate("node %v: Accumulate while another call on the heap runs", h.key)
				return
			}
			defer h.inUse.Store(0)
			c.watchBetween(h.key, &h.Inner, &h.shadow)
			if h.done.Load() != 0 {
				c.violate("node %v: Accumulate after Finalize", h.key)
			}
			switch {
			case !child.valid:
				c.violate("node %v: accumulated a result no Finalize made", h.key)
			case h.accs >= len(h.expect):
				c.violate("node %v: child %d (%v) accumulated but the node has %d children", h.key, h.accs, child.Key, len(h.expect))
			case h.expect[h.accs] != child.Key:
				c.violate("node %v: child %d is %v, accumulated %v", h.key, h.accs, h.expect[h.accs], child.Key)
			}
			h.accs++
			f.Accumulate(&h.Inner, child.Value)
			h.shadow = h.Inner
		},
		Finalize: func(hp **Heap[H, K]) Checked[R, K] {
			h := *hp
			if h == nil {
				c.violate("Finalize on a heap no Init made")
				var zero Checked[R, K]
				return zero
			}
			if !h.inUse.CompareAndSwap(0, 1) {
				c.violate("node %v: Finalize while another call on the heap runs", h.key)
				var zero Checked[R, K]
				return zero
			}
			defer h.inUse.Store(0)
			if h.done.Add(1) != 1 {
				c.violate("node %v: Finalize called again", h.key)
			}
			if h.accs != len(h.expect) {
				c.violate("node %v: %d children accumulated, the node has %d", h.key, h.accs, len(h.expect))
			}
			c.finals.Add(1)
			c.watchBetween(h.key, &h.Inner, &h.shadow)
			r := f.Finalize(&h.Inner)
			h.shadow = h.Inner
			if c.Watch {
				c.watchFinalised(h.key, &h.Inner, &h.shadow, r)
			}
			return Checked[R, K]{Value: r, Key: h.key, valid: true}
		},
	}
}

// keptPointer is the end of every message about a *H kept past its call.
const keptPointer = "a *H is valid only during the call it is passed to, and the executors reuse a heap's memory once it is finalised"

// watchBetween records, with Watch, a heap that changed since the last
// call on it left it.
func (c *Checker[K]) watchBetween(key K, inner, shadow any) {
	if c.Watch && !sameShallow(reflect.ValueOf(inner).Elem(), reflect.ValueOf(shadow).Elem()) {
		c.violate("node %v: its heap changed between the calls on it: a callback kept the *H it was given past that call "+
			"and wrote through it later (%s)", key, keptPointer)
	}
}

// watchFinalised (with Watch) records a result r that points into its
// heap *inner, and keeps a check that the heap does not change after
// Finalize for CheckFinalized.
func (c *Checker[K]) watchFinalised(key K, inner, shadow, r any) {
	in := reflect.ValueOf(inner)
	if pointsInto(reflect.ValueOf(r), in.UnsafePointer(), in.Elem().Type().Size()) {
		c.violate("node %v: Finalize returned a value that points into the node's heap (the *H or a pointer into it): "+
			"%s, so the result must copy what it needs", key, keptPointer)
	}
	c.mu.Lock()
	c.finalised = append(c.finalised, func() string {
		if sameShallow(in.Elem(), reflect.ValueOf(shadow).Elem()) {
			return ""
		}
		return fmt.Sprintf("node %v: its heap changed after its Finalize returned: a callback kept the *H it was given "+
			"past that call and wrote through it later (%s)", key, keptPointer)
	})
	c.mu.Unlock()
}
