package testcheck_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/internal/testcheck"
)

func ExamplePollUntil() {
	var done atomic.Bool
	go done.Store(true)
	fmt.Println(testcheck.PollUntil(done.Load))
	// Output: true
}

func TestMustPanicWith(t *testing.T) {
	testcheck.MustPanicWith(t, "divide", func() { panic("pool: parallelism n = -1 is negative") }, "n = -1")
	if r := testcheck.MustPanic(t, "boom", func() { panic(42) }); r != 42 {
		t.Fatalf("MustPanic returned %v", r)
	}
}
