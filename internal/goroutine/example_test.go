package goroutine_test

import (
	"fmt"

	"github.com/forkjoin-go/forkjoin/internal/goroutine"
)

// ID tells two goroutines apart.
func ExampleID() {
	me := goroutine.ID()
	other := make(chan uint64)
	go func() { other <- goroutine.ID() }()
	fmt.Println(me != 0, me != <-other)
	// Output: true true
}
