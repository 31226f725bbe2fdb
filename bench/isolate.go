package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Each workload runs in a process of its own (the program runs itself with
// -child-workload). A process that once had a million goroutines alive keeps
// a record of each, and every later garbage collection scans them all (about
// 10 ms per collection per million): a goroutine-per-fork strategy on
// tree-sum would slow down the collections of every later workload. A fresh
// process per workload also takes the goroutines of deadlocked strategies
// with it when it exits, and a workload that crashes its process (a stack or
// memory exhaustion in some peer) is reported instead of ending the run.
//
// The parent passes the settings as flags, and the child's own options (the
// workload, the result file, the time per LCG iteration, the progress
// counters and the deadlocks seen so far) as JSON in the environment
// variable childEnv, so that they are not among the flags -h shows; the
// child writes its results to a JSON file and exits.

// childEnv holds a child process's options; it also marks the process as a
// child for TestMain (the test binary is the executable there).
const childEnv = "FORKJOIN_BENCH_CHILD"

type childCell struct {
	Strategy   string       `json:"strategy"`
	Status     string       `json:"status"`
	Note       string       `json:"note"`
	Short      string       `json:"short"`
	Cutoff     int          `json:"cutoff"`
	Sweep      []SweepPoint `json:"sweep"`
	Reps       int          `json:"reps"`
	Rounds     int          `json:"rounds"`
	Samples    []Sample     `json:"samples"`
	ProbeNs    float64      `json:"probe_ns"`
	EstimateNs float64      `json:"estimate_ns"`
	CheckNs    float64      `json:"check_ns"`
	Median     float64      `json:"median"`
	Allocs     float64      `json:"allocs"`
	RatioSeq   float64      `json:"ratio_seq"`
	RatioBest  float64      `json:"ratio_best"`
}

type childResult struct {
	ID         string            `json:"id"`
	Units      float64           `json:"units"`
	Skipped    string            `json:"skipped"`
	Cells      []childCell       `json:"cells"`
	Deadlocked map[string]string `json:"deadlocked"`
	Wrong      int               `json:"wrong"`
	Abandoned  int               `json:"abandoned"`
	Done       int               `json:"done"`
	Total      int               `json:"total"`
}

// childOptions are a child's own options, passed in childEnv.
type childOptions struct {
	Workload  string            `json:"workload"`
	Out       string            `json:"out"`
	NsIter    float64           `json:"ns_per_iter"`
	Deadlocks map[string]string `json:"deadlocks"`
	Progress  string            `json:"progress"` // done/total/start (Unix ns)
}

// childFromEnv reads the child's options from childEnv; ok is false in the
// parent (childEnv unset).
func childFromEnv() (opt childOptions, ok bool, err error) {
	v := os.Getenv(childEnv)
	if v == "" {
		return opt, false, nil
	}
	if err := json.Unmarshal([]byte(v), &opt); err != nil {
		return opt, true, fmt.Errorf("bad %s: %v", childEnv, err)
	}
	return opt, true, nil
}

// runIsolated runs one workload in a child process and reads its result.
func (h *harness) runIsolated(w *Workload, stderr io.Writer) *WorkloadResult {
	cfg := h.cfg
	fail := func(format string, args ...any) *WorkloadResult {
		h.failed++
		msg := fmt.Sprintf(format, args...)
		h.loud("!! %s: %s", w.Label, msg)
		wr := &WorkloadResult{Workload: w, Skipped: "FAILED: " + msg}
		for _, s := range h.strategies {
			wr.Cells = append(wr.Cells, &Cell{Strategy: s, Status: statusAbsent})
		}
		return wr
	}
	f, err := os.CreateTemp("", "forkjoin-bench-*.json")
	if err != nil {
		return fail("%v", err)
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	exe, err := os.Executable()
	if err != nil {
		return fail("%v", err)
	}
	opt, err := json.Marshal(childOptions{
		Workload: w.ID, Out: path, NsIter: h.m.NsPerIter, Deadlocks: h.deadlocked,
		Progress: fmt.Sprintf("%d/%d/%d", h.prog.done, h.prog.total, h.prog.start.UnixNano()),
	})
	if err != nil {
		return fail("%v", err)
	}
	args := []string{
		"-mode", cfg.Mode, "-rounds", strconv.Itoa(cfg.Rounds), "-p", strconv.Itoa(cfg.P),
		"-timeout", cfg.Timeout.String(),
	}
	if def, _ := defaultConfig(cfg.Mode); cfg.RunLimit != def.RunLimit {
		args = append(args, "-run-limit", cfg.RunLimit.String())
	}
	if len(cfg.Strategies) > 0 {
		args = append(args, "-strategies", strings.Join(cfg.Strategies, ","))
	}
	if cfg.Single {
		args = append(args, "-single")
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"="+string(opt))
	cmd.Stdout = stderr // a child prints nothing there; anything it does is a diagnostic
	cmd.Stderr = stderr
	start := time.Now()
	runErr := cmd.Run()
	elapsed := time.Since(start)
	b, err := os.ReadFile(path)
	if runErr != nil || err != nil || len(b) == 0 {
		if runErr == nil {
			runErr = fmt.Errorf("no result file (%v)", err)
		}
		return fail("the workload's process failed: %v (its output is above)", runErr)
	}
	var cr childResult
	if err := json.Unmarshal(b, &cr); err != nil {
		return fail("bad result from the workload's process: %v", err)
	}
	h.deadlocked = cr.Deadlocked
	if h.deadlocked == nil {
		h.deadlocked = map[string]string{}
	}
	h.wrong += cr.Wrong
	h.childAbandoned += cr.Abandoned
	h.prog.done, h.prog.total = cr.Done, cr.Total
	wr := &WorkloadResult{Workload: w, Units: cr.Units, Skipped: cr.Skipped, Elapsed: elapsed}
	byName := map[string]childCell{}
	for _, c := range cr.Cells {
		byName[c.Strategy] = c
	}
	for _, s := range h.strategies {
		c, ok := byName[s.Name]
		if !ok {
			return fail("the workload's process did not report %s", s.Name)
		}
		wr.Cells = append(wr.Cells, &Cell{Strategy: s, Status: c.Status, Note: c.Note, Short: c.Short,
			Cutoff: c.Cutoff, Sweep: c.Sweep, Reps: c.Reps, Rounds: c.Rounds, Samples: c.Samples,
			ProbeNs: c.ProbeNs, EstimateNs: c.EstimateNs, CheckNs: c.CheckNs, Median: c.Median,
			Allocs: c.Allocs, RatioSeq: c.RatioSeq, RatioBest: c.RatioBest})
	}
	return wr
}

// runChild is the child's side: one workload, results to the file.
func runChild(cfg *Config, opt childOptions, stderr io.Writer) int {
	var w *Workload
	for _, cand := range workloadsFor(cfg.Mode) {
		if cand.ID == opt.Workload {
			w = cand
		}
	}
	if w == nil {
		fmt.Fprintf(stderr, "bench: child: no workload %q in mode %s\n", opt.Workload, cfg.Mode)
		return 2
	}
	if cfg.P > 0 {
		runtime.GOMAXPROCS(cfg.P)
	} else {
		cfg.P = runtime.GOMAXPROCS(0)
	}
	prog := newProgress(stderr)
	var startNs int64
	if n, _ := fmt.Sscanf(opt.Progress, "%d/%d/%d", &prog.done, &prog.total, &startNs); n == 3 {
		prog.start = time.Unix(0, startNs) // the elapsed time shown is the whole run's
	}
	h := &harness{
		cfg:        cfg,
		m:          &Machine{NsPerIter: opt.NsIter, P: cfg.P},
		strategies: selectStrategies(cfg),
		prog:       prog,
		deadlocked: map[string]string{},
		loud: func(format string, args ...any) {
			prog.clear()
			fmt.Fprintf(stderr, format+"\n", args...)
		},
	}
	for k, v := range opt.Deadlocks {
		h.deadlocked[k] = v
	}
	wr := h.runWorkload(w)
	prog.clear()
	cr := childResult{ID: w.ID, Units: wr.Units, Skipped: wr.Skipped, Deadlocked: h.deadlocked,
		Wrong: h.wrong, Abandoned: h.abandonedGoroutines(), Done: prog.done, Total: prog.total}
	for _, c := range wr.Cells {
		cr.Cells = append(cr.Cells, childCell{Strategy: c.Strategy.Name, Status: c.Status, Note: c.Note,
			Short: c.Short, Cutoff: c.Cutoff, Sweep: c.Sweep, Reps: c.Reps, Rounds: c.Rounds, Samples: c.Samples,
			ProbeNs: c.ProbeNs, EstimateNs: c.EstimateNs, CheckNs: c.CheckNs, Median: c.Median,
			Allocs: c.Allocs, RatioSeq: finite(c.RatioSeq), RatioBest: finite(c.RatioBest)})
	}
	b, err := json.Marshal(cr)
	if err == nil {
		err = os.WriteFile(opt.Out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bench: child:", err)
		return 2
	}
	return 0
}
