package forkjoin_test

import (
	"context"
	"fmt"
	"runtime/pprof"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/pool"
)

// A request handler labels its work for CPU profiles with pprof.Do and
// passes the context pprof.Do gives it on to the run: every goroutine that
// works for the run, the pool's workers included, carries the label
// "endpoint" while it does, so `go tool pprof -tagfocus endpoint=/squares`
// shows all of it. (forkjoin.Run, without a context, could not: work on
// the workers would carry no label.) With an execution trace on, the run
// is a trace task named forkjoin.RunCtx. See docs/observability.md.
func Example_profileLabels() {
	p := pool.New(0)
	defer p.Close()
	pprof.Do(context.Background(), pprof.Labels("endpoint", "/squares"), func(ctx context.Context) {
		var total int64
		err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
			total = forkjoin.Reduce(w, 1000, 0,
				func(_ *forkjoin.Worker, lo, hi int) (s int64) {
					for i := lo; i < hi; i++ {
						s += int64(i) * int64(i)
					}
					return s
				},
				func(a, b int64) int64 { return a + b })
			return nil
		})
		fmt.Println(total, err)
	})
	// Output: 332833500 <nil>
}
