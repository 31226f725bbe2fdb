package core_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"github.com/forkjoin-go/forkjoin/pool"
)

type countdown struct {
	task forkjoin.Task
	done *core.Completion
	n    *int
}

func ExamplePush_task() {
	pool.With(2, func(p *pool.Pool) {
		var done core.Completion
		n := 0
		c := &countdown{done: &done, n: &n}
		c.task.Init(func(w *forkjoin.Worker, t *forkjoin.Task) {
			*c.n = 99
			c.done.Complete()
		})
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			core.Push(w, &c.task)
			core.Wait(w, &done)
		})
		fmt.Println(n)
	})
	// Output: 99
}

type squareJob struct {
	task forkjoin.Task
	in   int
	out  int
	left *atomic.Int32
	done *core.Completion
}

func ExampleCompletion() {
	pool.With(2, func(p *pool.Pool) {
		jobs := make([]squareJob, 5)
		var done core.Completion
		var left atomic.Int32
		left.Store(int32(len(jobs)))
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			for i := range jobs {
				j := &jobs[i]
				j.in, j.left, j.done = i, &left, &done
				j.task.Init(func(w *forkjoin.Worker, t *forkjoin.Task) {
					j.out = j.in * j.in
					if j.left.Add(-1) == 0 { // the last one signals
						j.done.Complete()
					}
				})
				core.Push(w, &j.task)
			}
			core.Wait(w, &done) // runs pushed tasks (and others) until done
		})
		for i := range jobs {
			fmt.Print(jobs[i].out, " ")
		}
		fmt.Println(done.Done())
	})
	// Output: 0 1 4 9 16 true
}

func ExampleRecordPanic() {
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			func() {
				defer func() {
					if v := recover(); v != nil {
						core.RecordPanic(w, v) // on record first …
						// … then clean up; the run fails with the panic
					}
				}()
				panic("bad input")
			}()
			return nil
		})
		var pe *forkjoin.PanicError
		fmt.Println(errors.As(err, &pe), pe.Value)
	})
	// Output: true bad input
}

func ExamplePoll_WorkRequested() {
	const n = 1000
	type piece struct {
		task forkjoin.Task
		lo   int
	}
	var total atomic.Int64
	var done core.Completion
	var left atomic.Int32
	left.Store(n / 10)
	add := func(lo int) {
		for i := lo; i < lo+10; i++ {
			total.Add(int64(i))
		}
		if left.Add(-1) == 0 {
			done.Complete()
		}
	}
	pieces := make([]piece, n/10)
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			poll := core.PollOf(w) // once per task; then one load per look
			for k := range pieces {
				if poll.WorkRequested() { // somebody is idle: hand this piece over
					pc := &pieces[k]
					pc.lo = 10 * k
					pc.task.Init(func(*forkjoin.Worker, *forkjoin.Task) { add(pc.lo) })
					core.Push(w, &pc.task)
					continue
				}
				add(10 * k)
			}
			core.Wait(w, &done)
		})
	})
	fmt.Println(total.Load())
	// Output: 499500
}

func ExampleRequestPending() {
	var x uint64 = 1
	var half atomic.Int64
	var done core.Completion
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			poll := core.PollOf(w)
			// First a chain of steps, each needing the one before: nothing
			// to hand over. After one search that found nothing while the
			// request still stands, skip the search until there is
			// something (here the search is trivial; in a walk it scans).
			searched := false
			for range 100_000 {
				if poll.WorkRequested() && !searched {
					searched = core.RequestPending(w) // nothing found to give
				}
				x = x*6364136223846793005 + 1442695040888963407
			}
			// Then two independent halves: one can be handed over.
			other := func() {
				half.Store(int64(x % 1000))
				done.Complete()
			}
			var t forkjoin.Task
			t.Init(func(*forkjoin.Worker, *forkjoin.Task) { other() })
			if poll.WorkRequested() {
				core.Push(w, &t) // a participant is still waiting for it
			} else {
				other()
			}
			mine := int64(x % 100)
			core.Wait(w, &done)
			fmt.Println(mine + half.Load())
		})
	})
	// Output: 422
}

// Complete may be called from any goroutine, here one outside the pool.
// Until it is, the waiting worker helps with the pool's work.
func ExampleCompletion_Complete() {
	var loaded core.Completion
	var config string
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		config = "mode=fast" // say, read from a file
		loaded.Complete()    // what was written before is seen after Wait
	}()
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			core.Wait(w, &loaded)
			fmt.Println(config)
		})
	})
	<-finished
	// Output: mode=fast
}

// Done reports, without waiting, whether Complete was called.
func ExampleCompletion_Done() {
	var c core.Completion // the zero value is not complete
	fmt.Println(c.Done())
	c.Complete()
	fmt.Println(c.Done())
	// Output:
	// false
	// true
}

// Reset makes a Completion usable for another round, once nobody waits
// on it.
func ExampleCompletion_Reset() {
	var done core.Completion
	x := 1
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			for round := 0; round < 4; round++ {
				done.Reset() // the last round's Wait has returned
				var t forkjoin.Task
				t.Init(func(*forkjoin.Worker, *forkjoin.Task) {
					x *= 3
					done.Complete()
				})
				core.Push(w, &t)
				core.Wait(w, &done)
			}
		})
	})
	fmt.Println(x)
	// Output: 81
}

// digitsKey is the key of the scratch buffer in Local: a pointer
// of our own.
var digitsKey = new(int)

// Local keeps scratch memory per participant: each makes its buffer once
// and reuses it for every chunk it runs.
func ExampleLocal() {
	digits := make([]int, 1000)
	var made atomic.Int32
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			forkjoin.For(w, len(digits), 10, func(w *forkjoin.Worker, lo, hi int) {
				buf := core.Local(w, digitsKey, func() any {
					made.Add(1)
					return new([]byte)
				}).(*[]byte)
				for i := lo; i < hi; i++ {
					*buf = strconv.AppendInt((*buf)[:0], int64(i*i), 10)
					digits[i] = len(*buf)
				}
			})
		})
	})
	total := 0
	for _, d := range digits {
		total += d
	}
	fmt.Println(total, made.Load() <= 2) // at most one buffer per participant
	// Output: 5537 true
}

// Push hands a piece of work to whichever participant is free; the pusher
// works on its own piece meanwhile, then waits for the pushed one.
func ExamplePush() {
	data := make([]int, 1000)
	for i := range data {
		data[i] = i
	}
	var right struct {
		task forkjoin.Task
		sum  int
		done core.Completion
	}
	right.task.Init(func(*forkjoin.Worker, *forkjoin.Task) {
		for _, v := range data[500:] {
			right.sum += v
		}
		right.done.Complete()
	})
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			core.Push(w, &right.task) // another participant may take it
			left := 0
			for _, v := range data[:500] {
				left += v
			}
			core.Wait(w, &right.done) // runs it here if nobody took it
			fmt.Println(left + right.sum)
		})
	})
	// Output: 499500
}

// Wait helps instead of blocking: on a pool of parallelism 1 nobody else
// can run the pushed task, so the waiting caller runs it itself.
func ExampleWait() {
	var t forkjoin.Task
	var done core.Completion
	ranOn := -1
	t.Init(func(w *forkjoin.Worker, _ *forkjoin.Task) {
		ranOn = w.Index()
		done.Complete()
	})
	pool.With(1, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			core.Push(w, &t)
			core.Wait(w, &done)
			fmt.Println(ranOn == w.Index())
		})
	})
	// Output: true
}
