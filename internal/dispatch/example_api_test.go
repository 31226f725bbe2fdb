package dispatch_test

import (
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

// wordLengths is the data of the package example's job: the caller and the
// workers claim words by index until none is left.
type wordLengths struct {
	words   []string
	lengths []int
	next    atomic.Int64
}

func (wl *wordLengths) work() {
	for i := int(wl.next.Add(1) - 1); i < len(wl.words); i = int(wl.next.Add(1) - 1) {
		wl.lengths[i] = len(wl.words[i])
	}
}

// The lifecycle in one call: Dispatch publishes the Job, wakes the workers
// (goroutines that call Serve), runs the body on the caller, then seals the
// job and waits until no worker is inside it. After that the results can
// be read without any more synchronisation.
func Example() {
	var d dispatch.Dispatcher
	wake, stop := workers(&d, 2)
	defer stop()

	wl := &wordLengths{words: []string{"publish", "body", "seal", "latch"}}
	wl.lengths = make([]int, len(wl.words))
	job := dispatch.Job{
		Call: func(data unsafe.Pointer, _ int) { (*wordLengths)(data).work() },
		Data: unsafe.Pointer(wl),
	}
	d.Dispatch(&job, wake, wl.work)
	fmt.Println(wl.lengths)
	// Output: [7 4 4 5]
}

// Pinned tells a Dispatch-published job from a pinned one. A layer that
// pins its scheduler can check it before it dispatches, since a Dispatch
// while a job is pinned panics.
func ExampleDispatcher_Pinned() {
	var d dispatch.Dispatcher
	sched := &dispatch.Job{Call: func(unsafe.Pointer, int) {}}
	d.Pin(sched)
	if d.Pinned() != nil {
		fmt.Println("pinned, so no Dispatch now:", d.Pinned() == sched)
	}
	d.Unpin()

	once := &dispatch.Job{Call: func(unsafe.Pointer, int) {}}
	d.Dispatch(once, nil, func() {
		fmt.Println("during a Dispatch, pinned:", d.Pinned())
	})
	// Output:
	// pinned, so no Dispatch now: true
	// during a Dispatch, pinned: <nil>
}

// Unpin waits for the workers inside the pinned job: here it returns only
// once the worker has finished its sum, which can then be read safely.
func ExampleDispatcher_Unpin() {
	var d dispatch.Dispatcher
	inside := make(chan struct{})
	var sum int
	d.Pin(&dispatch.Job{Call: func(unsafe.Pointer, int) {
		close(inside) // the worker is in the job now
		for i := 1; i <= 100; i++ {
			sum += i
		}
	}})
	served := make(chan bool)
	go func() { served <- d.Serve(0) }() // a worker
	<-inside
	d.Unpin() // seals, then waits until the worker has left the job
	fmt.Println("sum:", sum)
	fmt.Println("served:", <-served)
	// Output:
	// sum: 5050
	// served: true
}

// NotifyOne after each item, because one consumer is enough to take it;
// NotifyAll at the end, because every consumer must see the queue closed.
func ExampleEventCount_NotifyOne() {
	var (
		ec     dispatch.EventCount
		mu     sync.Mutex
		queue  []int
		closed bool
		total  atomic.Int64
		wg     sync.WaitGroup
	)
	for c := 0; c < 2; c++ {
		wg.Add(1)
		go func() { // a consumer
			defer wg.Done()
			for {
				tok := ec.Prepare()
				mu.Lock()
				if len(queue) > 0 {
					item := queue[0]
					queue = queue[1:]
					mu.Unlock()
					total.Add(int64(item))
					continue
				}
				done := closed
				mu.Unlock()
				if done {
					return
				}
				ec.Wait(tok)
			}
		}()
	}
	for i := 1; i <= 10; i++ {
		mu.Lock()
		queue = append(queue, i)
		mu.Unlock()
		ec.NotifyOne()
	}
	mu.Lock()
	closed = true
	mu.Unlock()
	ec.NotifyAll()
	wg.Wait()
	fmt.Println("total:", total.Load())
	// Output: total: 55
}

// Wait may return for a notify that does not yet satisfy the waiter, so it
// is called in a loop that checks the condition again, as with sync.Cond.
func ExampleEventCount_Wait() {
	var ec dispatch.EventCount
	var ready atomic.Int32
	done := make(chan struct{})
	go func() { // three parts become ready, one notify each
		defer close(done)
		for i := 0; i < 3; i++ {
			ready.Add(1)
			ec.NotifyOne()
		}
	}()
	for {
		tok := ec.Prepare()
		if ready.Load() == 3 {
			break
		}
		ec.Wait(tok)
	}
	<-done
	fmt.Println("ready:", ready.Load())
	// Output: ready: 3
}

// Error gives the panic value, then the stack where it panicked, so that a
// re-raised *Recovered shows both in a crash report.
func ExampleRecovered_Error() {
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = dispatch.NewRecovered(r, debug.Stack())
			}
		}()
		s, i := []int{1, 2, 3}, 5
		fmt.Println(s[i]) // panics: index out of range
	}()
	fmt.Println(strings.SplitN(err.Error(), "\n", 2)[0])
	fmt.Println()
	fmt.Println("stack in the message:", strings.Contains(err.Error(), "goroutine"))
	// Output:
	// runtime error: index out of range [5] with length 3
	//
	// stack in the message: true
}

// Tokens compare equal when no notify came between the two Prepare calls:
// a pool's worker uses that to decide whether to look for work again or
// to sleep.
func ExampleToken() {
	var ec dispatch.EventCount
	first := ec.Prepare()
	fmt.Println("nothing happened:", ec.Prepare() == first)
	ec.NotifyOne()
	fmt.Println("after a notify:", ec.Prepare() == first)
	// Output:
	// nothing happened: true
	// after a notify: false
}
