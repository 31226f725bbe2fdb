package fold

import (
	"errors"
	"fmt"

	"github.com/forkjoin-go/forkjoin/tree"
)

// Fold is a recursive computation over a tree: Init starts a node's heap,
// Accumulate adds each child's result to it in child order, Finalize turns
// it into the node's result. See the package documentation for the exact
// calling contract.
type Fold[N, H, R any] struct {
	Init       func(n N) H
	Accumulate func(h *H, child R)
	Finalize   func(h *H) R
}

// New returns the Fold with the given callbacks.
func New[N, H, R any](init func(n N) H, accumulate func(h *H, child R), finalize func(h *H) R) Fold[N, H, R] {
	return Fold[N, H, R]{Init: init, Accumulate: accumulate, Finalize: finalize}
}

// ErrNilFunc is wrapped by the errors (and panics) that report a nil
// callback or a nil children function given to this package.
var ErrNilFunc = errors.New("fold: nil function")

func nilFunc(what string) error { return fmt.Errorf("%w: %s", ErrNilFunc, what) }

// check reports the first nil function among f's callbacks and g.
func check[N, H, R any](f Fold[N, H, R], g tree.Treeish[N]) error {
	switch {
	case f.Init == nil:
		return nilFunc("Fold.Init")
	case f.Accumulate == nil:
		return nilFunc("Fold.Accumulate")
	case f.Finalize == nil:
		return nilFunc("Fold.Finalize")
	case g == nil:
		return nilFunc("children (tree.Treeish)")
	}
	return nil
}

// mustFold panics with a clear error when one of f's callbacks is nil; the
// combinators use it so that a bad fold fails where it is built.
func mustFold[N, H, R any](f Fold[N, H, R], who string) {
	if err := check(f, func(N, func(N) bool) {}); err != nil {
		panic(fmt.Errorf("%s: %w", who, err))
	}
}
