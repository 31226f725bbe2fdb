package leakcheck_test

import (
	"fmt"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
)

// In a test, call Check first; the cleanup it registers fails the test if
// goroutines started by the test are still running when it ends:
//
//	func TestPool(t *testing.T) {
//		leakcheck.Check(t)
//		p := pool.New(4)
//		defer p.Close()
//		...
//	}
//
// Without a *testing.T, Snapshot and Verify give the error directly.
func ExampleSnapshot() {
	b := leakcheck.Snapshot()

	done := make(chan struct{})
	go func() { <-done }()
	fmt.Println("leak while blocked:", b.Verify(10*time.Millisecond) != nil)

	close(done) // the goroutine returns
	fmt.Println("after it returned:", b.Verify(leakcheck.Timeout))
	// Output:
	// leak while blocked: true
	// after it returned: <nil>
}

// printTB stands in for the *testing.T of a real test.
type printTB struct{ cleanups []func() }

func (p *printTB) Helper()           {}
func (p *printTB) Cleanup(fn func()) { p.cleanups = append(p.cleanups, fn) }
func (p *printTB) Errorf(string, ...any) {
	fmt.Println("the test failed: a goroutine leaked")
}

func ExampleCheck() {
	t := &printTB{} // in a real test: the *testing.T
	leakcheck.Check(t)

	// The test's body: it starts a goroutine and joins it.
	done := make(chan struct{})
	go func() { defer close(done) }()
	<-done

	// The testing package runs the cleanups when the test ends.
	for _, c := range t.cleanups {
		c()
	}
	fmt.Println("no leak reported")
	// Output: no leak reported
}
