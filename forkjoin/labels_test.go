package forkjoin_test

import (
	"bytes"
	"context"
	"maps"
	"runtime/pprof"
	"sync/atomic"
	"testing"

	"github.com/forkjoin-go/forkjoin/forkjoin"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/profread"
	"github.com/forkjoin-go/forkjoin/internal/testcheck"
	"github.com/forkjoin-go/forkjoin/pool"
)

// The tests of this file read goroutine profiles: each goroutine's stack
// and pprof labels, as they are at the moment of the profile.

const (
	workerLoopFn   = "github.com/forkjoin-go/forkjoin/internal/poolcore.(*Pool).workerLoop"
	compensatorFn  = "github.com/forkjoin-go/forkjoin/forkjoin.(*scheduler).compensator"
	labelsHereFn   = "github.com/forkjoin-go/forkjoin/forkjoin_test.labelsHere"
	blockedGroupFn = "github.com/forkjoin-go/forkjoin/forkjoin_test.blockedGroupTask"
)

// goroutines returns the samples of a goroutine profile.
func goroutines(t *testing.T) []profread.Sample {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		t.Fatal(err)
	}
	samples, err := profread.Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return samples
}

// labelsHere returns the labels of the calling goroutine: the one sample
// of a goroutine profile whose stack shows labelsHere.
//
//go:noinline
func labelsHere(t *testing.T) map[string]string {
	t.Helper()
	var found []map[string]string
	for _, s := range goroutines(t) {
		if s.Has(labelsHereFn) {
			found = append(found, s.Labels)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d goroutines in labelsHere, want 1", len(found))
	}
	return found[0]
}

// wantLabels fails t unless got has exactly the labels of want.
func wantLabels(t *testing.T, where string, got map[string]string, want ...string) {
	t.Helper()
	w := map[string]string{}
	for i := 0; i+1 < len(want); i += 2 {
		w[want[i]] = want[i+1]
	}
	if len(got) != len(w) || !maps.Equal(got, w) {
		t.Errorf("%s: labels %v, want %v", where, got, w)
	}
}

// idleCarryNothing waits until every worker of p that was started is
// parked and no compensator is alive, then checks that no goroutine of the
// pool carries labels: workers and compensators carry none while idle.
func idleCarryNothing(t *testing.T, p *pool.Pool) {
	t.Helper()
	if !testcheck.PollUntil(func() bool {
		st := p.Stats()
		return st.WorkersParked == st.WorkersAlive && st.CompensatorsAlive == 0
	}) {
		t.Fatalf("the pool's workers did not all park: %+v", p.Stats())
	}
	workers := 0
	for _, s := range goroutines(t) {
		if s.Has(workerLoopFn) || s.Has(compensatorFn) {
			workers += int(s.Values[0])
			if len(s.Labels) != 0 {
				t.Errorf("an idle goroutine of the pool carries labels %v: %v", s.Labels, s.Funcs)
			}
		}
	}
	if workers != p.Stats().WorkersAlive {
		t.Errorf("%d goroutines of the pool in the profile, %d workers alive", workers, p.Stats().WorkersAlive)
	}
}

// sumRange forks down to single elements: enough forks for the workers to
// take some.
func sumRange(w *forkjoin.Worker, lo, hi int) int {
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	var a, b int
	forkjoin.Join(w, func(w *forkjoin.Worker) { a = sumRange(w, lo, mid) },
		func(w *forkjoin.Worker) { b = sumRange(w, mid, hi) })
	return a + b
}

// runUntilWorkersTook runs fn on p until the pool's workers have run
// tasks (every started worker, started ones included).
func runUntilWorkersTook(t *testing.T, p *pool.Pool, fn func()) {
	t.Helper()
	took := func() bool {
		st := p.Stats()
		if len(st.Workers) < p.Workers() {
			return false
		}
		for _, w := range st.Workers {
			if w.Tasks == 0 {
				return false
			}
		}
		return true
	}
	for i := 0; !took(); i++ {
		if i == 10000 {
			t.Fatalf("the workers took no task in %d runs: %+v", i, p.Stats())
		}
		fn()
	}
}

// Workers started lazily from inside a labelled caller do not inherit its
// labels: the caller's run carries none (Run, with no context), so nothing
// sets the workers' labels, and they must start with none.
func TestWorkersStartWithoutLabels(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	pprof.Do(context.Background(), pprof.Labels("caller", "first"), func(context.Context) {
		runUntilWorkersTook(t, p, func() {
			forkjoin.Run(p, func(w *forkjoin.Worker) { sumRange(w, 0, 1<<12) })
		})
		wantLabels(t, "the caller after its runs", labelsHere(t), "caller", "first")
	})
	idleCarryNothing(t, p)
}

// Workers run a labelled run's tasks with its labels, and carry none once
// idle; the caller's goroutine keeps its labels.
func TestIdleWorkersDropLabels(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(3)
	defer p.Close()
	pprof.Do(context.Background(), pprof.Labels("caller", "ctx"), func(ctx context.Context) {
		runUntilWorkersTook(t, p, func() {
			if err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
				sumRange(w, 0, 1<<12)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		})
		wantLabels(t, "the caller after its runs", labelsHere(t), "caller", "ctx")
	})
	idleCarryNothing(t, p)
}

// A task spawned with a labelled context runs with its labels on the
// worker that takes it (the spawner waits on Done, which runs nothing); a
// task spawned with none runs with none, also when its spawner carries
// labels.
func TestSpawnCarriesContextLabels(t *testing.T) {
	leakcheck.Check(t)
	p := pool.New(2)
	defer p.Close()
	spawn := func(opts ...forkjoin.SpawnOption) map[string]string {
		h := forkjoin.Spawn(p, func(*forkjoin.Worker) (map[string]string, error) {
			return labelsHere(t), nil
		}, opts...)
		<-h.Done()
		labels, err := h.Join()
		if err != nil {
			t.Fatal(err)
		}
		return labels
	}
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("task", "one", "tier", "gold"))
	wantLabels(t, "a task spawned WithContext", spawn(forkjoin.WithContext(ctx)), "task", "one", "tier", "gold")
	pprof.Do(context.Background(), pprof.Labels("spawner", "labelled"), func(context.Context) {
		wantLabels(t, "a task spawned with no context", spawn())
	})
	wantLabels(t, "a task spawned with a context without labels", spawn(forkjoin.WithContext(context.Background())))
	idleCarryNothing(t, p)
}

// A caller whose run carries labels switches to another set's while it
// runs a task of it (here, at parallelism 1, the caller runs every task
// of a scope with labels of its own) and back afterwards.
func TestCallerSwitchesAndRestores(t *testing.T) {
	leakcheck.Check(t)
	pool.With(1, func(p *pool.Pool) {
		pprof.Do(context.Background(), pprof.Labels("caller", "A"), func(ctx context.Context) {
			err := forkjoin.RunCtx(ctx, p, func(w *forkjoin.Worker) error {
				scope := pprof.WithLabels(ctx, pprof.Labels("scope", "B"))
				var inTask, inDefault map[string]string
				err := forkjoin.ScopeCtx(scope, w, func(s *forkjoin.Spawner) {
					s.Spawn(w, func(*forkjoin.Worker) { inTask = labelsHere(t) })
				})
				wantLabels(t, "a task of a scope with labels", inTask, "caller", "A", "scope", "B")
				wantLabels(t, "the caller after the scope", labelsHere(t), "caller", "A")
				// A scope with a context without labels: the run's.
				forkjoin.Scope(w, func(s *forkjoin.Spawner) {
					s.Spawn(w, func(*forkjoin.Worker) { inDefault = labelsHere(t) })
				})
				wantLabels(t, "a task of a scope of the run", inDefault, "caller", "A")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			wantLabels(t, "the caller after the run", labelsHere(t), "caller", "A")
		})
	})
}

// blockedGroupTask is a Group's task that waits until release is closed.
//
//go:noinline
func blockedGroupTask(started *atomic.Int64, release <-chan struct{}) error {
	started.Add(1)
	<-release
	return nil
}

// A Group's tasks carry the labels of the group's context on every
// goroutine that runs them: here they block until all have started, so
// the pool's one worker runs one and compensating goroutines the others.
// Once they are over, no goroutine of the pool carries labels.
func TestGroupTasksCarryLabels(t *testing.T) {
	leakcheck.Check(t)
	const n = 6
	p := pool.New(2)
	defer p.Close()
	var started atomic.Int64
	release := make(chan struct{})
	var g *forkjoin.Group
	pprof.Do(context.Background(), pprof.Labels("group", "G"), func(ctx context.Context) {
		g, _ = forkjoin.NewGroup(ctx, p)
	})
	for range n {
		g.Go(func() error { return blockedGroupTask(&started, release) })
	}
	if !testcheck.PollUntil(func() bool { return started.Load() == n }) {
		close(release)
		t.Fatalf("%d of %d blocked tasks started", started.Load(), n)
	}
	running := 0
	for _, s := range goroutines(t) {
		if s.Has(blockedGroupFn) {
			running += int(s.Values[0])
			wantLabels(t, "a blocked task of the group", s.Labels, "group", "G")
		}
	}
	// Stats: the compensators running the blocked tasks are alive.
	if st := p.Stats(); st.CompensatorsAlive == 0 || st.CompensatorsStarted < int64(st.CompensatorsAlive) {
		t.Errorf("with %d tasks blocked on a pool of parallelism 2: CompensatorsAlive %d, CompensatorsStarted %d",
			n, st.CompensatorsAlive, st.CompensatorsStarted)
	}
	close(release)
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if running != n {
		t.Errorf("%d goroutines in the group's tasks, want %d", running, n)
	}
	if st := p.Stats(); st.CompensatorsStarted == 0 {
		t.Errorf("no compensator started for %d blocked tasks on a pool of parallelism 2: %+v", n, st)
	}
	idleCarryNothing(t, p)
}
