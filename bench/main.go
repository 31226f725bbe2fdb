// Command bench compares forkjoin with what a Go programmer would otherwise
// write — plain recursion, a goroutine per fork, goroutines above a depth
// cut-off, errgroup, conc, ants, pond, and a pool with one global queue — on
// built-in workloads: a tree sum and fib forking at every node, tree folds
// with cheap and with busy nodes, wide and deep trees, sort, single small
// runs, batches of independent tasks, a dependency graph, a spawn test, and
// loops over a slice and over an iterator.
//
//	go run ./bench            # about a minute on 2 cores
//	go run ./bench -quick     # about 15 s
//	go run ./bench -full      # the guide's sizes, several minutes
//
// It prints the machine (and its 2-core ceiling, measured in the same run),
// then one block per workload: every strategy's median time, time per node
// (or call, element, task), ratio to sequential and to the best alternative,
// allocations per run, and a note (deadlock, skipped, cut-off chosen, ...).
// Progress goes to stderr; -json writes every sample, -svg a chart.
// See docs/bench.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

func main() {
	// os.Exit ends the process even though goroutines of peers that
	// deadlocked (errgroup with SetLimit, ants with a capacity, pond on nested
	// forks) are still blocked: they cannot be stopped from outside, and
	// returning from main would end them the same way.
	os.Exit(mainWith(os.Args[1:], os.Stdout, os.Stderr))
}

// mainWith parses the flags, runs the benchmark and returns the exit code:
// 0, 1 when a strategy returned a wrong result, 2 on bad usage or I/O errors.
func mainWith(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	quick := fs.Bool("quick", false, "small sizes, 3 rounds: about 15 s on 2 cores")
	full := fs.Bool("full", false, "the guide's sizes (tree-sum 2^24-1, fib 35, the whole matrix, sort 10^7): several minutes")
	workloads := fs.String("workloads", "", "comma list of workloads to run: globs (matrix/*/bf8/*) or substrings (tree, tasks/); default all")
	strats := fs.String("strategies", "", "comma list of strategies to run (globs or substrings); sequential always runs")
	rounds := fs.Int("rounds", 0, "timed rounds per workload (default 3 quick, 5 default, 7 full)")
	p := fs.Int("p", 0, "parallelism: GOMAXPROCS and the workers of every pool (default GOMAXPROCS)")
	jsonPath := fs.String("json", "", "write the raw data (every sample, the machine) to this JSON file")
	svgPath := fs.String("svg", "", "write a chart of the results to this SVG file")
	single := fs.Bool("single", false, "time the checked run itself: one cold sample per strategy, no rounds (for the 10^6-node busy cells, whose runs take minutes)")
	runLimit := fs.Duration("run-limit", 0, "skip a run estimated to take longer than this (default 400ms quick, 1s default, 5s full); raise it to time the 10^6-node busy matrix cells")
	timeout := fs.Duration("timeout", 0, "deadlock detection: a strategy's small probe run must finish within this (default 500ms, 2s with -full)")
	list := fs.Bool("list", false, "list the workloads of the mode and the strategies, then exit")
	modeFlag := fs.String("mode", "", "quick, default or full (the same as -quick / -full)")
	inprocess := fs.Bool("inprocess", false, "run every workload in this process instead of a fresh one each (faster to start, but a goroutine-per-fork burst then slows the garbage collections of every later workload)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench: unexpected arguments %q\n", fs.Args())
		return 2
	}
	mode := "default"
	switch {
	case *quick && *full:
		fmt.Fprintln(stderr, "bench: -quick and -full exclude each other")
		return 2
	case *quick:
		mode = "quick"
	case *full:
		mode = "full"
	case *modeFlag != "":
		mode = *modeFlag
	}
	cfg, err := defaultConfig(mode)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	if *rounds > 0 {
		cfg.Rounds = *rounds
	}
	if *p < 0 || *rounds < 0 || *timeout < 0 || *runLimit < 0 {
		fmt.Fprintln(stderr, "bench: -p, -rounds, -timeout and -run-limit must not be negative")
		return 2
	}
	cfg.Single = *single
	if *runLimit > 0 {
		cfg.RunLimit = *runLimit
		cfg.CellBudget = max(cfg.CellBudget, *runLimit)
	}
	cfg.P = *p
	if *timeout > 0 {
		cfg.Timeout = *timeout
	}
	cfg.Workloads = splitList(*workloads)
	cfg.Strategies = splitList(*strats)
	cfg.JSONPath, cfg.SVGPath = *jsonPath, *svgPath
	if *list {
		printList(stdout, &cfg)
		return 0
	}
	if child, ok, err := childFromEnv(); err != nil {
		fmt.Fprintln(stderr, "bench: child:", err)
		return 2
	} else if ok {
		return runChild(&cfg, child, stderr)
	}
	cfg.Isolate = !*inprocess
	rep, err := run(&cfg, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "bench:", err)
		return 2
	}
	if rep.Wrong > 0 || rep.Failed > 0 {
		return 1
	}
	return 0
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func printList(w io.Writer, cfg *Config) {
	fmt.Fprintf(w, "workloads (%s mode):\n", cfg.Mode)
	for _, wl := range workloadsFor(cfg.Mode) {
		fmt.Fprintf(w, "  %-28s %s\n", wl.ID, wl.Label)
	}
	fmt.Fprintln(w, "strategies:")
	for _, s := range strategies() {
		fmt.Fprintf(w, "  %-19s %-10s %s\n", s.Name, s.Family, s.Desc)
	}
}

// Report is everything one run measured.
type Report struct {
	Machine   Machine
	Config    *Config
	Started   time.Time
	Elapsed   time.Duration
	Results   []*WorkloadResult
	Wrong     int // cells with a wrong result
	Failed    int // workloads whose process failed
	Abandoned int // goroutines left blocked by deadlocked strategies
	// AbandonedCells are the profiler labels ("workload · strategy") of the
	// cells whose goroutines were abandoned (see goroutines.go).
	AbandonedCells []string
}

// selectWorkloads filters the mode's workloads by ID or label.
func selectWorkloads(cfg *Config) []*Workload {
	var out []*Workload
	for _, w := range workloadsFor(cfg.Mode) {
		if matchAny(w.ID, cfg.Workloads) || (len(cfg.Workloads) > 0 && matchAny(w.Label, cfg.Workloads)) {
			out = append(out, w)
		}
	}
	return out
}

// selectStrategies filters the registry; sequential (the reference) is
// always first.
func selectStrategies(cfg *Config) []*Strategy {
	var out []*Strategy
	for _, s := range strategies() {
		if s.Name == "sequential" || matchAny(s.Name, cfg.Strategies) {
			out = append(out, s)
		}
	}
	for i, s := range out {
		if s.Name == "sequential" {
			copy(out[1:i+1], out[:i])
			out[0] = s
		}
	}
	return out
}

// run is the whole program after flag parsing: the machine, every selected
// workload with every selected strategy, the table on stdout, progress and
// loud failures on stderr, then the JSON and SVG files.
func run(cfg *Config, stdout, stderr io.Writer) (*Report, error) {
	if cfg.P > 0 {
		prev := runtime.GOMAXPROCS(cfg.P)
		defer runtime.GOMAXPROCS(prev)
	} else {
		cfg.P = runtime.GOMAXPROCS(0)
	}
	ws := selectWorkloads(cfg)
	if len(ws) == 0 {
		return nil, fmt.Errorf("no workload of the %s mode matches %q (see -list)", cfg.Mode, cfg.Workloads)
	}
	for _, pat := range cfg.Strategies {
		found := false
		for _, s := range strategies() {
			found = found || matchAny(s.Name, []string{pat})
		}
		if !found {
			return nil, fmt.Errorf("no strategy matches %q (see -list)", pat)
		}
	}
	rep := &Report{Config: cfg, Started: time.Now()}
	prog := newProgress(stderr)
	prog.show("machine", "2-core ceiling", "")
	rep.Machine = probeMachine(cfg.P)
	rep.Machine.measureCeiling(cfg.CeilingLoop)
	prog.show("machine", "wake-up latency", "")
	rep.Machine.WakeUs = wakeLatency(40)
	prog.clear()
	rep.Machine.print(stdout, cfg)
	printTableHeader(stdout)

	h := &harness{
		cfg:        cfg,
		m:          &rep.Machine,
		strategies: selectStrategies(cfg),
		prog:       prog,
		deadlocked: map[string]string{},
		loud: func(format string, args ...any) {
			prog.clear()
			fmt.Fprintf(stderr, format+"\n", args...)
		},
	}
	for _, w := range ws {
		prog.plan(h.planned(w))
	}
	for _, w := range ws {
		var wr *WorkloadResult
		if cfg.Isolate {
			wr = h.runIsolated(w, stderr)
		} else {
			wr = h.runWorkload(w)
		}
		prog.clear()
		printWorkload(stdout, wr, cfg.Rounds)
		rep.Results = append(rep.Results, wr)
	}
	prog.show("machine", "2-core ceiling again", "")
	rep.Machine.ceilingAgain(cfg.CeilingLoop)
	prog.clear()
	rep.Elapsed = time.Since(rep.Started)
	fmt.Fprintf(stdout, "2-core ceiling after the workloads: %.2f× (at the start %.2f×)\n", rep.Machine.CeilingEnd, rep.Machine.Ceiling)
	rep.Wrong, rep.Failed, rep.AbandonedCells = h.wrong, h.failed, h.abandoned
	rep.Abandoned = h.abandonedGoroutines() + h.childAbandoned
	fmt.Fprintf(stdout, "wall time %s", rep.Elapsed.Round(100*time.Millisecond))
	if rep.Abandoned > 0 {
		where := "they end with the process"
		if cfg.Isolate {
			where = "they ended with their workload's process"
		}
		fmt.Fprintf(stdout, "; %d goroutines of deadlocked strategies left blocked (%s)", rep.Abandoned, where)
	}
	if rep.Wrong > 0 {
		fmt.Fprintf(stdout, "; %d WRONG RESULTS", rep.Wrong)
	}
	if rep.Failed > 0 {
		fmt.Fprintf(stdout, "; %d WORKLOADS FAILED", rep.Failed)
	}
	fmt.Fprintln(stdout)

	if cfg.JSONPath != "" {
		if err := writeJSON(cfg.JSONPath, rep); err != nil {
			return rep, err
		}
	}
	if cfg.SVGPath != "" {
		if err := writeSVG(cfg.SVGPath, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}
