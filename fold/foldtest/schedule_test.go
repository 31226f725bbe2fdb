package foldtest

import (
	"context"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/internal/walk"
	"github.com/forkjoin-go/forkjoin/pool"
)

// TestScheduleMovesWork: under the checkers' schedule, work dealt without a
// request is taken by other participants.
func TestScheduleMovesWork(t *testing.T) {
	g := testtree.Complete(3, 2000)
	pool.With(4, func(p *pool.Pool) {
		s := &schedule{every: 4, seed: 1, wait: true}
		got, err := fold.RunCtx(walk.WithSchedule(context.Background(), s), p, testtree.SumFold(), testtree.Children, g.Root)
		if err != nil || got != testtree.SumTo(2000) {
			t.Fatalf("RunCtx = %d, %v; want %d", got, err, testtree.SumTo(2000))
		}
		t.Logf("looks %d, moved %d, misses %d", s.looks.Load(), s.moved.Load(), s.misses.Load())
		if s.moved.Load() == 0 {
			t.Fatalf("no dealt work was taken by another participant (%d looks)", s.looks.Load())
		}
	})
}
