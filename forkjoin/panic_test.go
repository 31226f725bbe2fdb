package forkjoin

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// PanicError is declared here, so that go doc shows its fields in this
// package, not as an alias of another package's type.
func TestPanicErrorDeclaredHere(t *testing.T) {
	typ := reflect.TypeFor[PanicError]()
	if want := reflect.TypeFor[Worker]().PkgPath(); typ.PkgPath() != want {
		t.Fatalf("PanicError is declared in %s, want %s", typ.PkgPath(), want)
	}
}

// A panic whose value wraps context.Canceled is a panic, not a
// cancellation: errors.Is does not report it as one, and its value is
// still there.
func TestPanicIsNotCancellation(t *testing.T) {
	leakcheck.Check(t)
	pool.With(2, func(p *pool.Pool) {
		err := RunCtx(context.Background(), p, func(w *Worker) error {
			Join(w, func(*Worker) {}, func(*Worker) {
				panic(fmt.Errorf("task gave up: %w", context.Canceled))
			})
			return nil
		})
		var pe *PanicError
		if !errors.As(err, &pe) {
			t.Fatalf("RunCtx = %v, want a *PanicError", err)
		}
		if errors.Is(err, context.Canceled) {
			t.Fatal("errors.Is(panic, context.Canceled) is true: a panic passes for a cancellation")
		}
		if v, ok := pe.Value.(error); !ok || !errors.Is(v, context.Canceled) {
			t.Fatalf("PanicError.Value = %v, want the value passed to panic", pe.Value)
		}
	})
}
