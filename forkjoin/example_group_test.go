package forkjoin_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// A Group parses inputs in parallel, as errgroup would: the first bad one
// fails the group, and the tasks still running see their context
// canceled.
func ExampleGroup() {
	p := pool.New(2)
	defer p.Close()

	inputs := []string{"1", "2", "x", "4"}
	var sum atomic.Int64
	g, ctx := forkjoin.NewGroup(context.Background(), p)
	for _, s := range inputs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err // another input failed already
			}
			v, err := strconv.Atoi(s)
			if err != nil {
				return fmt.Errorf("input %q: %w", s, err)
			}
			sum.Add(int64(v))
			return nil
		})
	}
	fmt.Println(g.Wait())
	// Output: input "x": strconv.Atoi: parsing "x": invalid syntax
}

// NewGroup from the context of another Group's task nests the new group in
// it: the outer Wait helps run the inner groups' tasks. Nesting works on
// any parallelism, here 1.
func ExampleNewGroup() {
	p := pool.New(1)
	defer p.Close()

	var count func(ctx context.Context, depth int, n *atomic.Int64) error
	count = func(ctx context.Context, depth int, n *atomic.Int64) error {
		n.Add(1)
		if depth == 0 {
			return nil
		}
		g, ctx := forkjoin.NewGroup(ctx, p)
		for range 3 {
			g.Go(func() error { return count(ctx, depth-1, n) })
		}
		return g.Wait()
	}
	var n atomic.Int64
	err := count(context.Background(), 4, &n)
	fmt.Println(n.Load(), err)
	// Output: 121 <nil>
}

// Tasks of a Group may block on each other, as goroutines do: here on the
// group's context, until the last task fails. Even on a pool of
// parallelism 1 nothing hangs: the pool adds goroutines while every
// participant is held up.
func ExampleGroup_Go() {
	p := pool.New(1)
	defer p.Close()

	errStop := errors.New("stop")
	g, ctx := forkjoin.NewGroup(context.Background(), p)
	for range 9 {
		g.Go(func() error {
			<-ctx.Done() // released by the last task's failure
			return ctx.Err()
		})
	}
	g.Go(func() error { return errStop })
	fmt.Println(g.Wait())
	// Output: stop
}

// GoWorker hands the task its Worker, for the typed forks, loops and folds
// of the pool.
func ExampleGroup_GoWorker() {
	p := pool.New(2)
	defer p.Close()

	sumTo := forkjoin.NewFork(func(f *forkjoin.Fork[[2]int, int], w *forkjoin.Worker, r [2]int) int {
		if r[1]-r[0] <= 1000 {
			s := 0
			for i := r[0]; i < r[1]; i++ {
				s += i
			}
			return s
		}
		mid := (r[0] + r[1]) / 2
		a, b := f.Join(w, [2]int{r[0], mid}, [2]int{mid, r[1]})
		return a + b
	})
	sums := make([]int, 3)
	g, _ := forkjoin.NewGroup(context.Background(), p)
	for i := range sums {
		g.GoWorker(func(w *forkjoin.Worker) error {
			sums[i] = sumTo.Call(w, [2]int{0, (i + 1) * 100_000})
			return nil
		})
	}
	fmt.Println(g.Wait(), sums)
	// Output: <nil> [4999950000 19999900000 44999850000]
}

// TryGo with a limit: it spawns only while fewer tasks than the limit are
// not over.
func ExampleGroup_TryGo() {
	p := pool.New(2)
	defer p.Close()

	g, _ := forkjoin.NewGroup(context.Background(), p)
	g.SetLimit(1)
	release := make(chan struct{})
	fmt.Println(g.TryGo(func() error { <-release; return nil }))
	fmt.Println(g.TryGo(func() error { return nil })) // the first is not over
	close(release)
	fmt.Println(g.Wait())
	// Output:
	// true
	// false
	// <nil>
}

// SetLimit bounds how many tasks are not over at once; Go blocks at the
// limit, as errgroup's does.
func ExampleGroup_SetLimit() {
	p := pool.New(4)
	defer p.Close()

	var running, most atomic.Int64
	g, _ := forkjoin.NewGroup(context.Background(), p)
	g.SetLimit(2)
	for range 20 {
		g.Go(func() error {
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			running.Add(-1)
			return nil
		})
	}
	fmt.Println(g.Wait(), most.Load() <= 2)
	// Output: <nil> true
}

// Wait returns a panic in a task as a *PanicError.
func ExampleGroup_Wait() {
	p := pool.New(2)
	defer p.Close()

	g, _ := forkjoin.NewGroup(context.Background(), p)
	g.Go(func() error { panic("oops") })
	var pe *forkjoin.PanicError
	err := g.Wait()
	fmt.Println(errors.As(err, &pe), pe.Value)
	// Output: true oops
}
