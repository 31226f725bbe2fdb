package main

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"
)

// Cell statuses.
const (
	statusOK       = "ok"       // checked and timed
	statusWrong    = "wrong"    // a result differed from the reference (or a panic)
	statusDeadlock = "deadlock" // the probe did not finish within -timeout (or not tried: see note)
	statusHung     = "hung"     // a full-size run did not finish within its limit
	statusSkipped  = "skipped"  // estimated too slow for the time budget
	statusAbsent   = "absent"   // the strategy does not implement the workload
)

// Sample is one timed sample: Reps back-to-back runs, reported per run.
type Sample struct {
	Round  int     `json:"round"`
	Ns     float64 `json:"ns"`
	Allocs float64 `json:"allocs"`
	Reps   int     `json:"reps"`
}

// SweepPoint is one cut-off tried by a SweepCutoff strategy.
type SweepPoint struct {
	Cutoff int     `json:"cutoff"`
	Ns     float64 `json:"ns"`
}

// Cell is one strategy on one workload.
type Cell struct {
	Strategy *Strategy
	Status   string
	Note     string // for the table
	Short    string // for the chart: the status in a few words
	Cutoff   int
	Sweep    []SweepPoint
	Reps     int
	Rounds   int // timed rounds planned
	Samples  []Sample

	ProbeNs    float64 // one run of the probe
	EstimateNs float64 // one run at full size, extrapolated from the probe
	CheckNs    float64 // the checked (untimed-for-the-table) first run at full size

	Median    float64 // ns per run, median over the samples
	Allocs    float64 // allocations per run, median over the samples
	RatioSeq  float64 // Median / sequential's Median (0: not available)
	RatioBest float64 // Median / the best non-forkjoin Median (0: not available)

	env     Env
	close   func()
	jobs    chan job
	scratch []int64 // sort: this cell's copy of the input
	key     string  // the profiler label of the cell's goroutines

	checkAllocs float64
}

// WorkloadResult is a workload's block of the table.
type WorkloadResult struct {
	Workload *Workload
	Units    float64
	Skipped  string // the whole workload was skipped: why
	Cells    []*Cell
	Elapsed  time.Duration // wall time spent on the workload
}

// job is one request to a cell's runner goroutine.
type job struct {
	inst    *Instance
	kind    Kind
	reps    int
	warm    bool // one untimed run first
	env     *Env
	scratch []int64
	prep    bool // prepare before every run (Workload.needsScratch)
	reply   chan outcome
}

type outcome struct {
	ns, allocs float64 // per run
	allocBytes float64 // per run
	result     uint64
	panicked   string
}

var errTimeout = errors.New("timeout")

// runCell is a cell's runner goroutine: it executes jobs until its channel
// is closed. Each cell has its own, long-lived one, so that a deep recursion
// keeps its grown stack from one sample to the next, and so that a strategy
// that deadlocks strands only this goroutine (and its own), never the
// harness.
func runCell(s *Strategy, jobs <-chan job) {
	for j := range jobs {
		j.reply <- execute(s, j)
	}
}

func execute(s *Strategy, j job) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o.panicked = fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	if j.warm {
		if j.prep {
			j.inst.prepare(j.scratch)
		}
		j.inst.exec(j.kind, s, j.env, j.scratch)
	}
	if j.prep {
		j.inst.prepare(j.scratch)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	t0 := time.Now()
	var r uint64
	for i := 0; i < j.reps; i++ {
		r = j.inst.exec(j.kind, s, j.env, j.scratch)
	}
	d := time.Since(t0)
	runtime.ReadMemStats(&m1)
	o.ns = float64(d.Nanoseconds()) / float64(j.reps)
	o.allocs = float64(m1.Mallocs-m0.Mallocs) / float64(j.reps)
	o.allocBytes = float64(m1.TotalAlloc-m0.TotalAlloc) / float64(j.reps)
	o.result = j.inst.finish(j.kind, j.scratch, r)
	return o
}

// harness runs the workloads and collects the results.
type harness struct {
	cfg        *Config
	m          *Machine
	strategies []*Strategy
	prog       *progress
	report     func(*WorkloadResult) // called as each workload completes
	loud       func(format string, args ...any)

	// deadlocked remembers, per strategy and nesting class, the workload on
	// which the strategy deadlocked: it is not tried again on that class.
	deadlocked map[string]string
	// abandoned lists the cells (by label) whose goroutines were left
	// blocked; they cannot be stopped, and the process exits with them.
	abandoned []string
	// childAbandoned counts the goroutines abandoned in workload processes
	// (gone with them).
	childAbandoned int
	wrong          int
	failed         int // workloads whose process failed
}

// sweepCandidates are the depth cut-offs a SweepCutoff strategy tries.
var sweepCandidates = []int{1, 2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24}

func (h *harness) fullLimit(estimate float64) time.Duration {
	return max(10*h.cfg.Timeout, time.Duration(5*estimate))
}

func (h *harness) runWorkload(w *Workload) *WorkloadResult {
	cfg := h.cfg
	wr := &WorkloadResult{Workload: w}
	start := time.Now()
	defer func() { wr.Elapsed = time.Since(start) }()
	var cells []*Cell
	for _, s := range h.strategies {
		c := &Cell{Strategy: s, Status: statusOK}
		if !w.supports(s) {
			c.Status = statusAbsent
		}
		cells = append(cells, c)
	}
	wr.Cells = cells
	planned := h.planned(w)

	if w.SeqIters > 0 {
		if est := w.SeqIters * h.m.NsPerIter; est > float64(cfg.RunLimit) {
			wr.Skipped = fmt.Sprintf("skipped: one sequential run ≈ %s > the %s run budget (-full raises it)",
				fmtDur(est), fmtDur(float64(cfg.RunLimit)))
			h.prog.replan(-planned)
			return wr
		}
	}

	h.prog.show(w.Label, "build", "")
	inst := w.build()
	probe := w.probe()
	wr.Units = inst.Units
	runtime.GC()

	// References: the independent expected value where the workload has one,
	// else the sequential strategy's result (checked first).
	seq := cells[0]
	var ref, probeRef uint64
	haveRef := false
	if inst.HasExpected {
		ref, probeRef, haveRef = inst.Expected, probe.Expected, true
	}
	// Strategies that start a goroutine per fork leave the runtime with a
	// record for every goroutine that was ever alive at once (up to millions),
	// and every later garbage collection scans them all: ~10 ms more per
	// collection per million. So the others run first, interleaved, and the
	// goroutine-per-fork strategies after them, each on its own (each
	// workload also runs in a fresh process; see isolate.go).
	// (The depth cut-off, whose bursts are the smallest, goes first.)
	groups := [][]*Cell{nil}
	for _, cutoffFirst := range []bool{true, false} {
		for _, c := range cells {
			if c.Strategy.GoroutinePerFork && c.Strategy.SweepCutoff == cutoffFirst {
				groups = append(groups, []*Cell{c})
			}
		}
	}
	for _, c := range cells {
		if !c.Strategy.GoroutinePerFork {
			groups[0] = append(groups[0], c)
		}
	}
	for _, group := range groups {
		for _, c := range group {
			if c.Status != statusOK {
				continue
			}
			if c != seq && !haveRef {
				c.Status, c.Note = statusSkipped, "not checked: the sequential reference failed"
				c.Short = "not checked"
				h.prog.replan(-(2 + cfg.Rounds))
				continue
			}
			h.prepare(w, inst, probe, c, &ref, &probeRef, haveRef)
			if c == seq && c.Status == statusOK {
				haveRef = true
			}
		}
		h.rounds(w, inst, ref, group)
		for _, c := range group {
			h.release(c)
		}
	}
	summarise(wr)
	return wr
}

// rounds runs the timed rounds of a group of cells, interleaved: every live
// strategy once per round, in an order shuffled for each round.
//
// Shuffled, not rotated: a rotation keeps every strategy behind the same
// one in almost every round, and what a strategy leaves running after its
// sample affects the next one's. A pool's workers may go on looking for
// work for a while after a run, holding a processor (forkjoin's search for
// 0.1 ms), and a goroutine that the next run wakes may wait for them; in
// the rotation, Scope's task rows came right after the For rows on
// forkjoin's other pool and paid for it, while gq-pool came after pond
// (docs/bench.md). The seed is fixed (the workload's and the round's), so a
// run is reproducible.
func (h *harness) rounds(w *Workload, inst *Instance, ref uint64, cells []*Cell) {
	cfg := h.cfg
	for r := 0; r < cfg.Rounds; r++ {
		var live []*Cell
		for _, c := range cells {
			if c.Status == statusOK && r < c.Rounds {
				live = append(live, c)
			}
		}
		if len(live) == 0 {
			break
		}
		order := rand.New(rand.NewPCG(uint64(r), seedOf(w.ID))).Perm(len(live))
		for _, i := range order {
			c := live[i]
			h.prog.show(w.Label, c.Strategy.Name, fmt.Sprintf("round %d/%d", r+1, c.Rounds))
			o, err := h.runOnce(c, w, inst, c.Reps, h.fullLimit(c.CheckNs*float64(c.Reps)))
			h.prog.step(1)
			if !h.accept(w, c, o, err, ref, "round "+fmt.Sprint(r+1)) {
				h.prog.replan(-(c.Rounds - r - 1))
				continue
			}
			c.Samples = append(c.Samples, Sample{Round: r + 1, Ns: o.ns, Allocs: o.allocs, Reps: c.Reps})
			if r == 0 {
				// The check run was cold (first run at full size: growing
				// heaps, stacks and pools); plan the rounds from a warm one.
				planned := c.Rounds
				c.Rounds = roundsFor(cfg, o.ns*float64(c.Reps))
				h.prog.replan(c.Rounds - planned)
			}
		}
	}
}

// planned is the progress steps of a workload: for every strategy that
// implements it a probe, a check and the rounds.
func (h *harness) planned(w *Workload) int {
	n := 0
	for _, s := range h.strategies {
		if w.supports(s) {
			n += 2 + h.cfg.Rounds
		}
	}
	return n
}

// prepare opens the strategy for the workload, runs the probe (deadlock
// detection and time estimate), sweeps the cut-off if asked, runs the
// full-size check and picks the repetitions and rounds.
func (h *harness) prepare(w *Workload, inst, probe *Instance, c *Cell, ref, probeRef *uint64, haveRef bool) {
	cfg := h.cfg
	s := c.Strategy
	unplanned := 2 + cfg.Rounds
	defer func() {
		if c.Status != statusOK {
			h.prog.replan(-unplanned)
		}
	}()
	if where, ok := h.deadlocked[deadlockKey(s, w)]; ok && w.Nesting != NestFlat {
		c.Status = statusDeadlock
		c.Note = fmt.Sprintf(notRunAgain+" (deadlocked on %s in %s)", nestingWhat(w.Nesting), where)
		c.Short = "deadlock (as in " + where + ")"
		return
	}
	c.key = w.ID + " · " + s.Name
	c.env = Env{P: cfg.P}
	c.jobs = make(chan job)
	withCellLabel(c.key, func() {
		if s.Open != nil {
			c.env.State, c.close = s.Open(cfg.P)
		}
		go runCell(s, c.jobs)
	})

	// The probe.
	h.prog.show(w.Label, s.Name, "probe")
	if s.SweepCutoff {
		c.env.Cutoff = min(probe.Depth, 4)
	}
	o, err := h.runOnce(c, w, probe, 1, probeTimeout(cfg, s, w))
	h.prog.step(1)
	unplanned--
	if err == errTimeout {
		h.markDeadlock(w, c, probe, "a")
		return
	}
	if c.Strategy == h.strategies[0] && !haveRef && o.panicked == "" {
		*probeRef = o.result
	}
	if !h.accept(w, c, o, err, *probeRef, "probe") {
		return
	}
	// Once more, warm (a pool's first run starts its workers): the faster of
	// the two is the estimate's basis.
	o2, err := h.runOnce(c, w, probe, 1, probeTimeout(cfg, s, w))
	if err == errTimeout {
		h.markDeadlock(w, c, probe, "the second")
		return
	}
	if !h.accept(w, c, o2, err, *probeRef, "probe") {
		return
	}
	c.ProbeNs = min(o.ns, o2.ns)
	c.EstimateNs = c.ProbeNs * inst.Units / probe.Units
	if c.EstimateNs > float64(cfg.RunLimit) && s != h.strategies[0] {
		c.Status = statusSkipped
		c.Short = fmt.Sprintf("skipped: too slow (≈%s/run)", fmtDur(c.EstimateNs))
		c.Note = fmt.Sprintf("skipped: too slow (≈%s/run, from %s/%s on a %g-%s probe)",
			fmtDur(c.EstimateNs), fmtDur(c.ProbeNs/probe.Units), unitOr(w.UnitName, "run"), probe.Units, unitOr(w.UnitName, "unit"))
		return
	}

	// The full-size check (and, for SweepCutoff, the sweep).
	if s.SweepCutoff {
		if !h.sweep(w, inst, c, *ref) {
			return
		}
	} else {
		h.prog.show(w.Label, s.Name, "check")
		o, err := h.runOnce(c, w, inst, 1, h.fullLimit(c.EstimateNs))
		if c.Strategy == h.strategies[0] && !haveRef && o.panicked == "" && err == nil {
			*ref = o.result
		}
		if !h.accept(w, c, o, err, *ref, "check") {
			return
		}
		c.CheckNs, c.checkAllocs = o.ns, o.allocs
	}
	h.prog.step(1)
	unplanned--

	c.Reps = 1
	if c.CheckNs > float64(cfg.RunLimit) || cfg.Single {
		// Slower than the estimate said, and over the run budget (or
		// -single): the checked run is the only sample (a cold one), no
		// rounds.
		c.Samples = []Sample{{Round: 0, Ns: c.CheckNs, Allocs: c.checkAllocs, Reps: 1}}
		c.Rounds = 0
		if cfg.Single {
			c.Note = joinNote(c.Note, "1 cold run only (-single)")
		} else {
			c.Note = joinNote(c.Note, "1 cold run only: the checked run exceeded the run budget")
		}
		h.prog.replan(-cfg.Rounds)
		return
	}
	if !w.needsScratch() && c.CheckNs < float64(cfg.MinSample) {
		c.Reps = int(min(1e6, math.Ceil(float64(cfg.MinSample)/max(c.CheckNs, 1))))
	}
	c.Rounds = roundsFor(cfg, c.CheckNs*float64(c.Reps))
	if c.Rounds < cfg.Rounds {
		h.prog.replan(c.Rounds - cfg.Rounds)
	}
}

// markDeadlock marks a cell whose probe (which: "a", "the second") gave no
// result within the timeout, remembers the deadlock for the workload's
// nesting class and abandons the cell. A bounded pool's deadlock is
// labelled so: it is what such a pool does on the workload, where any
// other strategy's is a bug.
func (h *harness) markDeadlock(w *Workload, c *Cell, probe *Instance, which string) {
	what := "deadlock"
	if c.Strategy.Bounded {
		what = "deadlocks (bounded pool)"
	}
	c.Status = statusDeadlock
	timeout := probeTimeout(h.cfg, c.Strategy, w)
	c.Note = fmt.Sprintf("%s: no result within %s on %s %g-%s probe", what, timeout, which, probe.Units, unitOr(w.UnitName, "unit"))
	c.Short = fmt.Sprintf("%s: no result within %s", what, timeout)
	h.deadlocked[deadlockKey(c.Strategy, w)] = w.Label
	h.abandon(c)
}

// deadlockKey is the key of h.deadlocked: a strategy and a nesting class.
func deadlockKey(s *Strategy, w *Workload) string { return s.Name + "|" + w.Nesting }

// probeTimeout is how long a probe may take before its strategy is said
// to deadlock on w: cfg.Timeout for a strategy that may (a pool whose
// workers block waiting for their own subtasks, a bounded pool on tasks
// that block), so that each such cell costs little; for the others a
// deadlock would be a bug, and a probe that is merely slow (the race
// detector on a loaded machine) must not be reported as one.
func probeTimeout(cfg *Config, s *Strategy, w *Workload) time.Duration {
	if s.mayDeadlock(w) {
		return cfg.Timeout
	}
	return max(cfg.Timeout, 10*time.Second)
}

// roundsFor is how many timed rounds of a sample this long fit the cell
// budget: at least one, at most -rounds.
func roundsFor(cfg *Config, sampleNs float64) int {
	return int(max(1, min(float64(cfg.Rounds), float64(cfg.CellBudget)/max(sampleNs, 1))))
}

// sweep tries the cut-off candidates at full size, checking each result, and
// keeps the fastest; it stops once a candidate is much slower than the best
// (past the optimum) or the sweep has used two cell budgets.
func (h *harness) sweep(w *Workload, inst *Instance, c *Cell, ref uint64) bool {
	var cands []int
	for _, d := range sweepCandidates {
		if d <= inst.Depth {
			cands = append(cands, d)
		}
	}
	if len(cands) == 0 {
		cands = []int{0}
	}
	start := time.Now()
	best, bestNs, reps := -1, 0.0, 1
	for _, d := range cands {
		c.env.Cutoff = d
		h.prog.show(w.Label, c.Strategy.Name, fmt.Sprintf("cut-off sweep %d", d))
		o, err := h.runOnce(c, w, inst, reps, h.fullLimit(max(c.EstimateNs, bestNs)*float64(reps)))
		if !h.accept(w, c, o, err, ref, fmt.Sprintf("cut-off %d", d)) {
			return false
		}
		if best < 0 && !w.needsScratch() && o.ns < float64(h.cfg.MinSample) {
			reps = int(min(1e6, math.Ceil(float64(h.cfg.MinSample)/max(o.ns, 1))))
		}
		c.Sweep = append(c.Sweep, SweepPoint{Cutoff: d, Ns: o.ns})
		if best < 0 || o.ns < bestNs {
			best, bestNs, c.checkAllocs = d, o.ns, o.allocs
		} else if o.ns > 1.5*bestNs {
			break
		}
		if time.Since(start) > 2*h.cfg.CellBudget {
			break
		}
	}
	c.env.Cutoff, c.Cutoff, c.CheckNs = best, best, bestNs
	var tried []string
	for _, p := range c.Sweep {
		tried = append(tried, fmt.Sprint(p.Cutoff))
	}
	c.Note = fmt.Sprintf("cut-off depth %d (swept %s)", best, strings.Join(tried, ","))
	return true
}

// runOnce hands one job to the cell's runner and waits for it at most limit.
func (h *harness) runOnce(c *Cell, w *Workload, inst *Instance, reps int, limit time.Duration) (outcome, error) {
	var scratch []int64
	if w.needsScratch() {
		if len(c.scratch) < len(inst.input) {
			c.scratch = make([]int64, len(inst.input))
		}
		scratch = c.scratch[:len(inst.input)]
	}
	j := job{inst: inst, kind: w.Kind, reps: reps, warm: w.WarmEach, env: &c.env, scratch: scratch, prep: w.needsScratch(), reply: make(chan outcome, 1)}
	c.jobs <- j
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case o := <-j.reply:
		// A run that allocated much leaves garbage; collect it now, so
		// that the next strategy does not pay for it. (Only then: a
		// collection also shrinks the stacks of idle goroutines, and a deep
		// recursion pays for growing its stack again in its next run.)
		if o.allocBytes*float64(reps) >= 256<<10 {
			runtime.GC()
		}
		return o, nil
	case <-t.C:
		return outcome{}, errTimeout
	}
}

// accept checks one outcome; on a failure it marks the cell, says so loudly
// and releases (or abandons) the strategy.
func (h *harness) accept(w *Workload, c *Cell, o outcome, err error, want uint64, what string) bool {
	switch {
	case err == errTimeout:
		c.Status = statusHung
		c.Note = fmt.Sprintf("hung: no result within its limit (%s run)", what)
		c.Short = "hung (no result)"
		h.abandon(c)
		return false
	case o.panicked != "":
		c.Status = statusWrong
		first, _, _ := strings.Cut(o.panicked, "\n")
		c.Note = "WRONG: " + first + " (" + what + ")"
		c.Short = "WRONG: panicked"
		h.wrong++
		h.loud("!! %s / %s: %s\n%s", w.Label, c.Strategy.Name, what, o.panicked)
		h.release(c)
		return false
	case o.result != want:
		c.Status = statusWrong
		c.Note = fmt.Sprintf("WRONG result (%s): got %#x, want %#x", what, o.result, want)
		c.Short = "WRONG RESULT"
		h.wrong++
		h.loud("!! WRONG RESULT: %s / %s (%s): got %#x, want %#x", w.Label, c.Strategy.Name, what, o.result, want)
		h.release(c)
		return false
	}
	return true
}

// release stops a cell's runner and closes its strategy state (once).
func (h *harness) release(c *Cell) {
	if c.jobs != nil {
		close(c.jobs)
		c.jobs = nil
	}
	if c.close != nil {
		c.close()
		c.close = nil
	}
	c.scratch = nil
}

// abandon gives up on a cell whose run never returned. Its runner goroutine
// and whatever goroutines the strategy started are blocked for good: Go has
// no way to stop a goroutine from outside, so they stay (counted in
// h.abandoned) until the process exits. Its pool is not closed (closing
// would wait for them).
func (h *harness) abandon(c *Cell) {
	close(c.jobs) // a runner that does finish late then exits
	c.jobs, c.close, c.scratch = nil, nil, nil
	h.abandoned = append(h.abandoned, c.key)
}

// abandonedGoroutines counts the goroutines still alive of abandoned cells.
func (h *harness) abandonedGoroutines() int {
	counts := cellGoroutines()
	n := 0
	for _, k := range h.abandoned {
		n += counts[k]
	}
	return n
}

// summarise computes medians and ratios.
func summarise(wr *WorkloadResult) {
	for _, c := range wr.Cells {
		if c.Status != statusOK || len(c.Samples) == 0 {
			if c.Status == statusOK {
				c.Status, c.Note, c.Short = statusSkipped, "no timed round", "no timed round"
			}
			continue
		}
		var ns, al []float64
		for _, s := range c.Samples {
			ns = append(ns, s.Ns)
			al = append(al, s.Allocs)
		}
		c.Median, c.Allocs = median(ns), median(al)
	}
	seq := wr.Cells[0]
	best := 0.0
	for _, c := range wr.Cells {
		if c.Status == statusOK && !c.Strategy.isForkjoin() && (best == 0 || c.Median < best) {
			best = c.Median
		}
	}
	for _, c := range wr.Cells {
		if c.Status != statusOK {
			continue
		}
		if seq.Status == statusOK && seq.Median > 0 {
			c.RatioSeq = c.Median / seq.Median
		}
		if best > 0 {
			c.RatioBest = c.Median / best
		}
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func unitOr(u, alt string) string {
	if u == "" {
		return alt
	}
	return u
}

// seedOf is a workload's seed for the order of its rounds.
func seedOf(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}
