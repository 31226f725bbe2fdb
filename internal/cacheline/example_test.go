package cacheline_test

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/cacheline"
)

// Two counters written by different goroutines, a line apart.
type counters struct {
	a atomic.Int64
	_ cacheline.Pad
	b atomic.Int64
}

func ExamplePad() {
	var c counters
	fmt.Println(unsafe.Offsetof(c.b)-unsafe.Offsetof(c.a) >= cacheline.Size)
	// Output: true
}
