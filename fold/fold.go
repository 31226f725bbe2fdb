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

// New returns the Fold with the given callbacks. A nil callback panics
// with an error wrapping ErrNilFunc that names it.
func New[N, H, R any](init func(n N) H, accumulate func(h *H, child R), finalize func(h *H) R) Fold[N, H, R] {
	mustNotNil("fold.New", []string{"init", "accumulate", "finalize"}, init == nil, accumulate == nil, finalize == nil)
	return Fold[N, H, R]{Init: init, Accumulate: accumulate, Finalize: finalize}
}

// ErrNilFunc is wrapped by the panics that report a nil callback, or the
// zero tree.Treeish, given to this package (the panic's value is an error
// naming the argument).
var ErrNilFunc = errors.New("fold: nil function")

func nilFunc(what string) error { return fmt.Errorf("%w: %s", ErrNilFunc, what) }

// check reports the first nil function among f's callbacks, or g if it
// is the zero Treeish.
func check[N, H, R any](f Fold[N, H, R], g tree.Treeish[N]) error {
	switch {
	case f.Init == nil:
		return nilFunc("Fold.Init")
	case f.Accumulate == nil:
		return nilFunc("Fold.Accumulate")
	case f.Finalize == nil:
		return nilFunc("Fold.Finalize")
	case g.IsZero():
		return nilFunc("children (the zero tree.Treeish)")
	}
	return nil
}

// mustCheck panics, as who, with check's error if there is one: every
// executor's test of its arguments, whether or not it returns an error
// (programming errors panic; see docs/guarantees.md).
func mustCheck[N, H, R any](who string, f Fold[N, H, R], g tree.Treeish[N]) {
	if err := check(f, g); err != nil {
		panic(fmt.Errorf("%s: %w", who, err))
	}
}

// mustNotNil panics, as who, with an error wrapping ErrNilFunc naming the
// first of args that is nil (nils[i] says whether args[i] is).
func mustNotNil(who string, args []string, nils ...bool) {
	for i, isNil := range nils {
		if isNil {
			panic(fmt.Errorf("%s: %w", who, nilFunc(args[i])))
		}
	}
}

// mustFold panics with a clear error when one of f's callbacks is nil; the
// combinators use it so that a bad fold fails where it is built.
func mustFold[N, H, R any](f Fold[N, H, R], who string) {
	if err := check(f, tree.FromFunc(func(N, func(N) bool) {})); err != nil {
		panic(fmt.Errorf("%s: %w", who, err))
	}
}
