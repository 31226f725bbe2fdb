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

// A Group parses inputs in parallel; the first bad one fails the group,
// and the tasks still running see their context cancelled.
func ExampleGroup() {
	inputs := []string{"1", "2", "x", "4"}
	var sum atomic.Int64
	pool.With(2, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			g := forkjoin.NewGroup(w.Context(), w)
			for _, s := range inputs {
				g.Go(w, func(ctx context.Context, w *forkjoin.Worker) error {
					v, err := strconv.Atoi(s)
					if err != nil {
						return fmt.Errorf("input %q: %w", s, err)
					}
					sum.Add(int64(v))
					return nil
				})
			}
			return g.Wait()
		})
		fmt.Println(err)
	})
	// Output: input "x": strconv.Atoi: parsing "x": invalid syntax
}

// NewGroup inside a task makes a nested group: its Wait helps run the
// pool's tasks, so nesting works on any parallelism, here 1.
func ExampleNewGroup() {
	var count func(ctx context.Context, w *forkjoin.Worker, depth int, n *atomic.Int64) error
	count = func(ctx context.Context, w *forkjoin.Worker, depth int, n *atomic.Int64) error {
		n.Add(1)
		if depth == 0 {
			return nil
		}
		g := forkjoin.NewGroup(ctx, w)
		for range 3 {
			g.Go(w, func(ctx context.Context, w *forkjoin.Worker) error {
				return count(ctx, w, depth-1, n)
			})
		}
		return g.Wait()
	}
	var n atomic.Int64
	pool.With(1, func(p *pool.Pool) {
		err := forkjoin.RunCtx(context.Background(), p, func(w *forkjoin.Worker) error {
			return count(w.Context(), w, 4, &n)
		})
		fmt.Println(n.Load(), err)
	})
	// Output: 121 <nil>
}

// Go's function receives the group's context: cancelled with the first
// failure as its cause.
func ExampleGroup_Go() {
	errStop := errors.New("stop")
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			g := forkjoin.NewGroup(context.Background(), w)
			g.Go(w, func(ctx context.Context, w *forkjoin.Worker) error { return errStop })
			g.Go(w, func(ctx context.Context, w *forkjoin.Worker) error {
				<-ctx.Done() // the first task's failure ends the wait
				return ctx.Err()
			})
			fmt.Println(g.Wait())
		})
	})
	// Output: stop
}

// Wait returns a panic in a task as a *PanicError.
func ExampleGroup_Wait() {
	pool.With(2, func(p *pool.Pool) {
		forkjoin.Run(p, func(w *forkjoin.Worker) {
			g := forkjoin.NewGroup(context.Background(), w)
			g.Go(w, func(context.Context, *forkjoin.Worker) error { panic("oops") })
			var pe *forkjoin.PanicError
			err := g.Wait()
			fmt.Println(errors.As(err, &pe), pe.Value)
		})
	})
	// Output: true oops
}
