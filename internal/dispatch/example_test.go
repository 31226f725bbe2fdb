package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/forkjoin-go/forkjoin/internal/dispatch"
)

// A Job is a function and a pointer to its data. Only Call knows the type
// behind Data; the Dispatcher passes both along without looking.
func ExampleJob() {
	type greeting struct{ name string }
	g := greeting{name: "worker"}
	job := dispatch.Job{
		Call: func(data unsafe.Pointer, worker int) {
			fmt.Printf("hello from %d, %s\n", worker, (*greeting)(data).name)
		},
		Data: unsafe.Pointer(&g),
	}
	job.Call(job.Data, 0) // what a worker does once it has loaded the job
	fmt.Println(unsafe.Sizeof(job) == 2*unsafe.Sizeof(uintptr(0)))
	// Output:
	// hello from 0, worker
	// true
}

// The consumer checks for work between Prepare and Wait; the producer makes
// work available first and notifies second. No wake-up can be lost.
func ExampleEventCount() {
	var ec dispatch.EventCount
	var mailbox atomic.Pointer[string]
	done := make(chan struct{})

	go func() { // consumer
		defer close(done)
		for {
			tok := ec.Prepare()
			if msg := mailbox.Load(); msg != nil {
				fmt.Println("got", *msg)
				return
			}
			ec.Wait(tok) // sleeps unless a notify came after Prepare
		}
	}()

	msg := "work"
	mailbox.Store(&msg) // 1. make the work visible
	ec.NotifyOne()      // 2. then notify
	<-done
	// Output: got work
}

// A Wait whose token was taken before a notify does not sleep.
func ExampleEventCount_Prepare() {
	var ec dispatch.EventCount
	tok := ec.Prepare()
	ec.NotifyAll() // nobody is waiting: this only moves the epoch
	ec.Wait(tok)   // returns at once: the notify came after tok
	fmt.Println("did not sleep")
	// Output: did not sleep
}

func ExampleEventCount_Waiters() {
	var ec dispatch.EventCount
	var wg sync.WaitGroup
	tok := ec.Prepare()
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ec.Wait(tok)
		}()
	}
	for ec.Waiters() < 3 {
		runtime.Gosched() // wait for all three to be inside Wait
	}
	fmt.Println("waiting:", ec.Waiters())
	ec.NotifyAll()
	wg.Wait()
	fmt.Println("waiting:", ec.Waiters())
	// Output:
	// waiting: 3
	// waiting: 0
}

// workers runs k goroutines that serve d's jobs the way a pool's workers
// do: enter Serve whenever the epoch moved since the last entry, park
// otherwise. It returns the wake function for Dispatch and a stop function.
func workers(d *dispatch.Dispatcher, k int) (wake, stop func()) {
	var ec dispatch.EventCount
	var stopping atomic.Bool
	var wg sync.WaitGroup
	for id := 0; id < k; id++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last dispatch.Token
			entered := false
			for {
				tok := ec.Prepare()
				if stopping.Load() {
					return
				}
				if !entered || tok != last {
					entered, last = true, tok
					d.Serve(id)
					continue
				}
				ec.Wait(tok)
			}
		}()
	}
	return ec.NotifyAll, func() {
		stopping.Store(true)
		ec.NotifyAll()
		wg.Wait()
	}
}

// sumJob sums a slice in chunks that the caller and the workers claim.
type sumJob struct {
	data  []int64
	next  atomic.Int64 // next chunk to claim
	total atomic.Int64
}

const chunk = 1000

func (s *sumJob) work() {
	for {
		c := s.next.Add(1) - 1
		lo := int(c) * chunk
		if lo >= len(s.data) {
			return
		}
		hi := min(lo+chunk, len(s.data))
		var sum int64
		for _, v := range s.data[lo:hi] {
			sum += v
		}
		s.total.Add(sum)
	}
}

// A Dispatcher runs one Job on the workers while the caller works on it
// too; when Dispatch returns, nobody is inside the job any more.
func ExampleDispatcher() {
	var d dispatch.Dispatcher
	wake, stop := workers(&d, 3)
	defer stop()

	s := &sumJob{data: make([]int64, 100_000)}
	for i := range s.data {
		s.data[i] = int64(i)
	}
	job := dispatch.Job{
		Call: func(data unsafe.Pointer, _ int) { (*sumJob)(data).work() },
		Data: unsafe.Pointer(s),
	}
	d.Dispatch(&job, wake, s.work) // the caller's body claims chunks too
	fmt.Println(s.total.Load())
	// Output: 4999950000
}

// After Dispatch returns, the job's data can be reset and reused for the
// next run: no worker is still reading it.
func ExampleDispatcher_Dispatch() {
	var d dispatch.Dispatcher
	wake, stop := workers(&d, 2)
	defer stop()

	s := &sumJob{data: make([]int64, 10_000)}
	job := dispatch.Job{
		Call: func(data unsafe.Pointer, _ int) { (*sumJob)(data).work() },
		Data: unsafe.Pointer(s),
	}
	for run := int64(1); run <= 3; run++ {
		for i := range s.data {
			s.data[i] = run // recycle the buffer
		}
		s.next.Store(0)
		s.total.Store(0)
		d.Dispatch(&job, wake, s.work)
		fmt.Println("run", run, "sum", s.total.Load())
	}
	// Output:
	// run 1 sum 10000
	// run 2 sum 20000
	// run 3 sum 30000
}

// Pin keeps a job published for a long-lived scheduler until Unpin, which
// seals and latches it like the end of a Dispatch.
func ExampleDispatcher_Pin() {
	var d dispatch.Dispatcher
	wake, stop := workers(&d, 1)
	defer stop()

	var entered atomic.Int64
	job := &dispatch.Job{Call: func(unsafe.Pointer, int) { entered.Add(1) }}
	d.Pin(job)
	fmt.Println("pinned:", d.Pinned() == job)
	wake() // the worker enters the pinned job
	for entered.Load() == 0 {
		runtime.Gosched()
	}
	d.Unpin()
	fmt.Println("after Unpin:", d.Pinned())
	// Output:
	// pinned: true
	// after Unpin: <nil>
}

// Serve is the worker's side of the lifecycle; with nothing published it
// counts in and out and reports that it called nothing.
func ExampleDispatcher_Serve() {
	var d dispatch.Dispatcher
	fmt.Println("served:", d.Serve(0))

	job := &dispatch.Job{Call: func(_ unsafe.Pointer, worker int) { fmt.Println("worker", worker, "in the job") }}
	d.Pin(job)
	fmt.Println("served:", d.Serve(1))
	d.Unpin()
	// Output:
	// served: false
	// worker 1 in the job
	// served: true
}

// A panic in a worker's call reaches the caller of Dispatch as a
// *Recovered that carries the value and the worker's stack.
func ExampleRecovered() {
	var d dispatch.Dispatcher
	wake, stop := workers(&d, 1)
	defer stop()

	var called atomic.Bool
	job := dispatch.Job{Call: func(unsafe.Pointer, int) {
		called.Store(true)
		panic("worker failed")
	}}
	func() {
		defer func() {
			pe := recover().(*dispatch.Recovered)
			fmt.Println(pe.Value, "/ stack captured:", len(pe.Stack) > 0)
		}()
		d.Dispatch(&job, wake, func() {
			for !called.Load() {
				runtime.Gosched() // make sure the worker ran it
			}
		})
	}()
	// Output: worker failed / stack captured: true
}

func ExampleNewRecovered() {
	errDisk := errors.New("disk full")
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = dispatch.NewRecovered(r, nil) // the stack would come from runtime/debug.Stack
			}
		}()
		panic(errDisk)
	}()
	fmt.Println(err)
	var pe *dispatch.Recovered
	fmt.Println(errors.As(err, &pe) && pe.Value == errDisk) // the value, as passed to panic
	// Output:
	// disk full
	// true
}

// NotifyAll wakes every goroutine asleep in Wait; NotifyOne would wake one.
func ExampleEventCount_NotifyAll() {
	var ec dispatch.EventCount
	var wg sync.WaitGroup
	var woke atomic.Int32
	tok := ec.Prepare()
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ec.Wait(tok)
			woke.Add(1)
		}()
	}
	ec.NotifyAll() // whether they are asleep yet or not, all four return
	wg.Wait()
	fmt.Println("woke:", woke.Load())
	// Output: woke: 4
}

// errors.Is sees through a *Recovered to an error value, except to a
// cancellation: a panic is not one.
func ExampleRecovered_Unwrap() {
	pe := dispatch.NewRecovered(fmt.Errorf("node 7: %w", errors.ErrUnsupported), nil)
	fmt.Println(errors.Is(pe, errors.ErrUnsupported))
	pe = dispatch.NewRecovered(fmt.Errorf("node 7: %w", context.Canceled), nil)
	v, _ := pe.Value.(error)
	fmt.Println(errors.Is(pe, context.Canceled), errors.Is(v, context.Canceled))
	// Output:
	// true
	// false true
}
