package fold_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestCloseFromFoldCallback: Close called from a fold's callback panics
// at once (Run re-panics it) and leaves the pool open and usable.
func TestCloseFromFoldCallback(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	const n = 10_000
	f := fold.New(
		func(i int) int64 {
			if i == n/2 {
				p.Close()
			}
			return int64(i)
		},
		func(h *int64, c int64) { *h += c },
		func(h *int64) int64 { return *h },
	)
	msg := func() (msg string) {
		defer func() { msg = fmt.Sprint(recover()) }()
		fold.Run(p, f, testtree.Binary(n), 0)
		return ""
	}()
	if !strings.Contains(msg, "Close called from") {
		t.Fatalf("Close from a fold callback: Run panicked with %q", msg)
	}
	sum := fold.New(func(i int) int64 { return int64(i) }, func(h *int64, c int64) { *h += c }, func(h *int64) int64 { return *h })
	if got := fold.Run(p, sum, testtree.Binary(n), 0); got != testtree.SumTo(n) {
		t.Fatalf("a fold after the refused Close = %d, want %d", got, testtree.SumTo(n))
	}
}
