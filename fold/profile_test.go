package fold_test

import (
	"bytes"
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/profread"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// spinA and spinB are the per-node work of the two callers of
// TestProfileLabels: the same loop, under two names, so that a sample's
// stack says whose work it is.
//
//go:noinline
func spinA(n int) int { return lcgSpin(n) }

//go:noinline
func spinB(n int) int { return lcgSpin(n) }

func lcgSpin(n int) int {
	x := uint32(n)
	for range 2000 {
		x = x*1664525 + 1013904223
	}
	return int(x >> 16)
}

// spinFold folds an implicit perfect binary tree of size nodes (node i has
// children 2i+1 and 2i+2), with work at every node.
func spinFold(work func(int) int) fold.Fold[int, int, int] {
	return fold.New(work, func(h *int, c int) { *h += c }, func(h *int) int { return *h })
}

func spinTree(size int) tree.Treeish[int] {
	return tree.FromFunc(func(n int, yield func(int) bool) {
		for c := 2*n + 1; c <= 2*n+2 && c < size; c++ {
			if !yield(c) {
				return
			}
		}
	})
}

// TestProfileLabels: two callers with different pprof labels fold at once
// on one pool, whose workers start from inside the first caller; in a CPU
// profile, at least 90% of the samples of each caller's work (its own spin
// function on the stack) carry its labels, and none the other's. The pool's
// participants carry a run's labels while they run its work; a worker
// started by a labelled caller does not keep that caller's labels.
//
// Each fold takes tens of milliseconds, longer than the scheduler's time
// slice, so that the pool's workers (more goroutines than processors on a
// small machine) take a good share of it. Profiles are taken in rounds
// until each caller has minSamples samples (CPU samples come at 100 per
// second of CPU time, whatever the load): about two seconds on an idle
// two-core machine.
func TestProfileLabels(t *testing.T) {
	testcheck.Long(t)
	leakcheck.Check(t)
	const minSamples = 60
	p := pool.New(4)
	defer p.Close()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var folds [2]atomic.Int64
	caller := func(i int, name string, work func(int) int) {
		defer wg.Done()
		pprof.Do(context.Background(), pprof.Labels("caller", name), func(ctx context.Context) {
			f, g := spinFold(work), spinTree(1<<14-1)
			for !stop.Load() {
				if _, err := fold.RunCtx(ctx, p, f, g, 0); err != nil {
					t.Error(err)
					return
				}
				folds[i].Add(1)
			}
		})
	}
	// Caller A starts first, alone: the pool's workers start from its
	// goroutine, with its labels.
	wg.Add(1)
	go caller(0, "A", spinA)
	if !testcheck.PollUntil(func() bool { return folds[0].Load() > 0 }) {
		t.Fatal("caller A's first fold did not end")
	}
	wg.Add(1)
	go caller(1, "B", spinB)
	defer func() {
		stop.Store(true)
		wg.Wait()
	}()

	counts := map[string]map[string]int{"A": {}, "B": {}} // caller: label seen: samples
	deadline := time.Now().Add(30 * time.Second)
	for counts["A"]["total"] < minSamples || counts["B"]["total"] < minSamples {
		if time.Now().After(deadline) {
			t.Fatalf("too few CPU samples of the callers' work after 30 s: %v", counts)
		}
		for _, s := range cpuProfile(t, 300*time.Millisecond) {
			for who, fn := range map[string]string{"A": "spinA", "B": "spinB"} {
				if s.Has("github.com/forkjoin-go/forkjoin/fold_test." + fn) {
					if s.Has("github.com/forkjoin-go/forkjoin/internal/poolcore.(*Pool).workerLoop") {
						counts[who]["on workers"] += int(s.Values[0])
					}
					counts[who]["total"] += int(s.Values[0])
					counts[who][s.Labels["caller"]] += int(s.Values[0])
				}
			}
		}
	}
	for _, who := range []string{"A", "B"} {
		c := counts[who]
		other := map[string]string{"A": "B", "B": "A"}[who]
		if c[who]*10 < c["total"]*9 || c[other] != 0 || c["on workers"] == 0 {
			t.Errorf("caller %s: %d of %d samples carry its label, %d the other caller's, %d are on the pool's workers (want >= 90%%, none, some): %v",
				who, c[who], c["total"], c[other], c["on workers"], counts)
		}
	}
	t.Logf("samples: %v; folds: A %d, B %d", counts, folds[0].Load(), folds[1].Load())
}

// cpuProfile profiles the process's CPU for d and returns the samples.
func cpuProfile(t *testing.T, d time.Duration) []profread.Sample {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skipf("cannot profile (is a CPU profile already on, as with go test -cpuprofile?): %v", err)
	}
	time.Sleep(d)
	pprof.StopCPUProfile()
	samples, err := profread.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return samples
}
