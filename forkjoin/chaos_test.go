package forkjoin

import (
	"context"
	"errors"
	"github.com/forkjoin-go/forkjoin/internal/core"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// waitJob is an intrusive task that computes a fib and counts down.
type waitJob struct {
	task Task
	n    int
	out  int
	left *atomic.Int32
	done *core.Completion
}

func (j *waitJob) run(w *Worker, _ *Task) {
	defer func() {
		if j.left.Add(-1) == 0 {
			j.done.Complete()
		}
	}()
	if w.Canceled() {
		return
	}
	j.out = fibFork.Call(w, j.n)
}

// TestChaos mixes every kind of run on one pool from several goroutines at
// once — plain, panicking, canceled, failing, nested, Push/Wait with
// private forks held across the Wait, For and Reduce — so that each
// participant keeps helping with other runs' tasks while it waits for its
// own. Every run checks its own outcome. A long test.
func TestChaos(t *testing.T) {
	testcheck.Long(t)
	leakcheck.Check(t)
	var c int64
	root := buildTree(12, &c)
	want := seqSum(root)
	nodes := 1<<12 - 1
	rounds := 300
	if raceEnabled {
		rounds = 60
	}
	for _, par := range []int{2, 5} {
		p := pool.New(par)
		var bad errOnce
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(g), uint64(par)))
				for i := 0; i < rounds && bad.get() == ""; i++ {
					if msg := chaosRound(p, r, root, want, nodes); msg != "" {
						bad.set("parallelism %d, goroutine %d, round %d: %s", par, g, i, msg)
					}
				}
			}()
		}
		wg.Wait()
		p.Close()
		if msg := bad.get(); msg != "" {
			t.Fatal(msg)
		}
	}
}

func chaosRound(p *pool.Pool, r *rand.Rand, root *tnode, want int64, nodes int) string {
	switch kind := r.IntN(7); kind {
	case 0: // plain
		if err := checkSum(p, root, want); err != nil {
			return err.Error()
		}
	case 1: // a panic somewhere
		b := &boom{round: r.Int(), at: 1 + r.IntN(nodes)}
		err := RunCtx(context.Background(), p, func(w *Worker) error {
			bombFork.Call(w, bombArg{root, b})
			return nil
		})
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != *b {
			return "bomb: got " + errString(err)
		}
	case 2: // canceled at a random moment
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Duration(r.IntN(500))*time.Microsecond, cancel)
		err := RunCtx(ctx, p, func(w *Worker) error { return endless(w, root) })
		cancel()
		if !errors.Is(err, context.Canceled) {
			return "cancel: got " + errString(err)
		}
	case 3: // fn's error while stolen work runs
		err := RunCtx(context.Background(), p, func(w *Worker) error {
			var e error
			Join(w, func(w *Worker) { sumFork.Call(w, root); e = errStop }, func(w *Worker) { sumFork.Call(w, root) })
			return e
		})
		if !errors.Is(err, errStop) {
			return "error: got " + errString(err)
		}
	case 4: // nested
		if got := nestedSum(p, 2); got != smallSum<<2 {
			return "nested: wrong sum"
		}
	case 5: // Push/Wait with private forks held across the Wait
		const n = 16
		jobs := make([]waitJob, n)
		var left atomic.Int32
		left.Store(n)
		var done core.Completion
		var a, b int
		Run(p, func(w *Worker) {
			fa := fibFork.Start(w, 17)
			fb := fibFork.Start(w, 16)
			for i := range jobs {
				j := &jobs[i]
				j.n, j.left, j.done = 10+i%6, &left, &done
				j.task.Init(j.run)
				core.Push(w, &j.task)
			}
			core.Wait(w, &done)
			b = fb.Join(w)
			a = fa.Join(w)
		})
		if a != seqFib(17) || b != seqFib(16) {
			return "push/wait: wrong futures"
		}
		for i := range jobs {
			if jobs[i].out != seqFib(jobs[i].n) {
				return "push/wait: wrong task result"
			}
		}
	case 6: // For and Reduce
		var s atomic.Int64
		var red int64
		Run(p, func(w *Worker) {
			For(w, 10_000, 0, func(_ *Worker, lo, hi int) {
				var x int64
				for i := lo; i < hi; i++ {
					x += int64(i)
				}
				s.Add(x)
			})
			red = Reduce(w, 10_000, 0, func(_ *Worker, lo, hi int) int64 {
				var x int64
				for i := lo; i < hi; i++ {
					x += int64(i)
				}
				return x
			}, func(x, y int64) int64 { return x + y })
		})
		if s.Load() != 10_000*9_999/2 || red != 10_000*9_999/2 {
			return "for/reduce: wrong sum"
		}
	}
	return ""
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
