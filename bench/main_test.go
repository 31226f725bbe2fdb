package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the program when the isolated
// mode runs a workload in a child process (the child is this executable).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(mainWith(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// tinyConfig is the test mode: the smallest sizes, one round, both outputs.
func tinyConfig(t *testing.T) Config {
	t.Helper()
	cfg, err := defaultConfig("tiny")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg.JSONPath = filepath.Join(dir, "bench.json")
	cfg.SVGPath = filepath.Join(dir, "bench.svg")
	return cfg
}

// waitGoroutines waits until the only goroutines left beyond those counted
// in before (by cell label) are those of the abandoned cells, and fails with
// the stacks if that does not happen soon.
func waitGoroutines(t *testing.T, before map[string]int, abandoned []string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, k := range abandoned {
		allowed[k] = true
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		var extra []string
		for label, n := range cellGoroutines() {
			if n > before[label] && !allowed[label] {
				extra = append(extra, fmt.Sprintf("%q: %d", label, n-before[label]))
			}
		}
		if len(extra) == 0 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("goroutines left behind (by cell label) %v:\n%s", extra, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunTiny runs the whole program in-process on the tiny sizes: every
// strategy that is not deadlock-prone must produce the reference answer on
// every workload it implements, the deadlock-prone ones must either complete
// correctly or be reported as deadlocked (never hang), and the JSON and SVG
// files must be well-formed. The only goroutines left afterwards are those of
// deadlocked peers, which the harness abandons on purpose (Go cannot stop a
// blocked goroutine) and counts in Report.Abandoned.
func TestRunTiny(t *testing.T) {
	before := cellGoroutines()
	cfg := tinyConfig(t)
	var stdout, stderr bytes.Buffer
	start := time.Now()
	rep, err := run(&cfg, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tiny run took %s (%d goroutines abandoned)", time.Since(start).Round(time.Millisecond), rep.Abandoned)
	if testing.Verbose() {
		t.Log("\n" + stdout.String())
	}
	if rep.Wrong != 0 {
		t.Errorf("%d wrong results; stderr:\n%s", rep.Wrong, stderr.String())
	}
	checkProgress(t, stderr.String())
	if got, want := len(rep.Results), len(workloadsFor("tiny")); got != want {
		t.Fatalf("%d workloads ran, want %d", got, want)
	}
	deadlocks := 0
	seq := strategies()[0]
	for _, wr := range rep.Results {
		w := wr.Workload
		if wr.Skipped != "" {
			t.Errorf("%s: skipped whole: %s", w.Label, wr.Skipped)
			continue
		}
		if !strings.Contains(stdout.String(), w.Label) {
			t.Errorf("the table lacks %q", w.Label)
		}
		for _, c := range wr.Cells {
			s := c.Strategy
			switch {
			case !w.supports(s):
				if c.Status != statusAbsent {
					t.Errorf("%s / %s: status %q for an unimplemented workload", w.Label, s.Name, c.Status)
				}
			case c.Status == statusOK:
				if len(c.Samples) == 0 || c.Median <= 0 {
					t.Errorf("%s / %s: ok without a timed sample", w.Label, s.Name)
				}
				// No ratio to sequential where sequential cannot run
				// the workload (the blocking one).
				if (c.RatioSeq > 0) != w.supports(seq) || c.RatioBest <= 0 {
					t.Errorf("%s / %s: ratios %v %v", w.Label, s.Name, c.RatioSeq, c.RatioBest)
				}
			case c.Status == statusDeadlock && s.mayDeadlock(w):
				deadlocks++
				if s.Bounded && !strings.HasPrefix(c.Note, "deadlocks (bounded pool): no result within") &&
					!strings.HasPrefix(c.Note, notRunAgain) {
					t.Errorf("%s / %s: a bounded pool's deadlock not labelled so: %s", w.Label, s.Name, c.Note)
				}
			default:
				t.Errorf("%s / %s: status %q: %s", w.Label, s.Name, c.Status, c.Note)
			}
		}
	}
	t.Logf("%d deadlocks reported", deadlocks)
	checkTableRows(t, stdout.String())

	// The JSON is well-formed and holds every sample.
	b, err := os.ReadFile(cfg.JSONPath)
	if err != nil {
		t.Fatal(err)
	}
	var jr jsonReport
	if err := json.Unmarshal(b, &jr); err != nil {
		t.Fatalf("bad JSON: %v", err)
	}
	if jr.Machine.GoVersion == "" || jr.Machine.Ceiling <= 0 || len(jr.Workloads) != len(rep.Results) {
		t.Errorf("JSON lacks the machine or workloads: %+v", jr.Machine)
	}
	for i, jw := range jr.Workloads {
		if len(jw.Results) != len(rep.Results[i].Cells) {
			t.Errorf("JSON %s: %d results, want %d", jw.ID, len(jw.Results), len(rep.Results[i].Cells))
		}
		for _, jc := range jw.Results {
			if jc.Status == statusOK && len(jc.Samples) == 0 {
				t.Errorf("JSON %s / %s: no samples", jw.ID, jc.Strategy)
			}
		}
	}

	// The SVG is well-formed XML with an <svg> root and a bar per ok row.
	f, err := os.Open(cfg.SVGPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	root, bars, texts := "", 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("bad SVG: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			switch se.Name.Local {
			case "rect":
				bars++
			case "text":
				texts++
			}
		}
	}
	okCells := 0
	for _, wr := range rep.Results {
		for _, c := range wr.Cells {
			if c.Status == statusOK {
				okCells++
			}
		}
	}
	if root != "svg" || bars < okCells || texts < okCells {
		t.Errorf("SVG: root %q, %d rects and %d texts for %d ok rows", root, bars, texts, okCells)
	}

	waitGoroutines(t, before, rep.AbandonedCells)
}

// TestStrategiesAgree runs every strategy that cannot deadlock directly (no
// harness, no timeout) on every tiny workload and compares with the
// independent expected value or the sequential strategy.
func TestStrategiesAgree(t *testing.T) {
	p := runtime.GOMAXPROCS(0)
	for _, w := range workloadsFor("tiny") {
		inst := w.build()
		var want uint64
		var scratch []int64
		if w.needsScratch() {
			scratch = make([]int64, len(inst.input))
		}
		runIt := func(s *Strategy) uint64 {
			env := &Env{P: p, Cutoff: 3}
			if s.Open != nil {
				var closeFn func()
				env.State, closeFn = s.Open(p)
				defer closeFn()
			}
			if w.needsScratch() {
				inst.prepare(scratch)
			}
			return inst.finish(w.Kind, scratch, inst.exec(w.Kind, s, env, scratch))
		}
		for i, s := range strategies() {
			if i == 0 {
				if !w.supports(s) {
					want = inst.Expected // (the blocking workload)
					continue
				}
				want = runIt(s)
				if inst.HasExpected && want != inst.Expected {
					t.Errorf("%s: sequential %#x, expected %#x", w.Label, want, inst.Expected)
				}
				continue
			}
			if s.mayDeadlock(w) || !w.supports(s) {
				continue
			}
			if got := withTimeout(t, w.Label+" / "+s.Name, func() uint64 { return runIt(s) }); got != want {
				t.Errorf("%s / %s: %#x, want %#x", w.Label, s.Name, got, want)
			}
		}
	}
}

// withTimeout returns f's result, or fails the test if f has not returned
// within a minute (a strategy that hangs; its goroutine is left blocked).
func withTimeout(t *testing.T, what string, f func() uint64) uint64 {
	t.Helper()
	res := make(chan uint64, 1)
	go func() { res <- f() }()
	select {
	case r := <-res:
		return r
	case <-time.After(time.Minute):
		t.Fatalf("%s: no result within a minute", what)
		return 0
	}
}

// TestOrderSensitive checks that the fold and task workloads detect a wrong
// order: accumulating children (or combining tasks) in reverse changes the
// result.
func TestOrderSensitive(t *testing.T) {
	p := &FoldProblem{Shape: ShapeBalanced, N: 200, BF: 3, Work: Work{Init: 3, Acc: 2, Fin: 1, Children: 1}}
	var rev func(n int) uint64
	rev = func(n int) uint64 {
		h := p.Init(n)
		first, count := p.Children(n)
		for c := first + count - 1; c >= first; c-- {
			h = p.Accumulate(h, rev(c))
		}
		return p.Finalize(h)
	}
	if foldSeq(p, 0) == rev(0) {
		t.Error("reversed child order gives the same fold")
	}
	if foldSeq(p, 0) != foldIter(p) {
		t.Error("recursive and explicit-stack folds differ")
	}
	ts := &TaskSet{Count: 10, Base: 5, Seed: 9}
	res := make([]uint64, ts.Count)
	for i := range res {
		res[i] = ts.Run(i)
	}
	fwd := ts.Combine(res)
	for i, j := 0, len(res)-1; i < j; i, j = i+1, j-1 {
		res[i], res[j] = res[j], res[i]
	}
	if ts.Combine(res) == fwd {
		t.Error("reversed task order gives the same combination")
	}
	a := []int64{3, 1, 2}
	if sortResult(a) == multisetHash(a) {
		t.Error("an unsorted slice passes as sorted")
	}
}

// TestHarnessCatches runs the harness with strategies that are broken on
// purpose: a wrong answer, a panic and a deadlock must each be reported,
// promptly, and never hang the run.
func TestHarnessCatches(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	defer unblock()
	seq := strategies()[0]
	wrongS := &Strategy{Name: "off-by-one", Family: "test",
		TreeSum: func(_ *Env, root *Node) int64 { return treeSumSeq(root) + 1 }}
	panicS := &Strategy{Name: "panics", Family: "test",
		TreeSum: func(_ *Env, root *Node) int64 { panic("boom") }}
	stuckS := &Strategy{Name: "stuck", Family: "test", DeadlockProne: true,
		TreeSum: func(_ *Env, root *Node) int64 { <-release; return treeSumSeq(root) }}
	cfg, _ := defaultConfig("tiny")
	cfg.Timeout = 100 * time.Millisecond
	cfg.P = runtime.GOMAXPROCS(0)
	var loud bytes.Buffer
	h := &harness{cfg: &cfg, m: &Machine{NsPerIter: 1}, prog: newProgress(nil),
		strategies: []*Strategy{seq, wrongS, panicS, stuckS}, deadlocked: map[string]string{},
		loud: func(f string, a ...any) { loud.WriteString(f + "\n") }}
	start := time.Now()
	wr := h.runWorkload(treeSumWorkload(6))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	want := []string{statusOK, statusWrong, statusWrong, statusDeadlock}
	for i, c := range wr.Cells {
		if c.Status != want[i] {
			t.Errorf("%s: status %q (%s), want %q", c.Strategy.Name, c.Status, c.Note, want[i])
		}
	}
	if !strings.Contains(wr.Cells[2].Note, "boom") {
		t.Errorf("panic note %q lacks the value", wr.Cells[2].Note)
	}
	if h.wrong != 2 || loud.Len() == 0 {
		t.Errorf("wrong=%d, loud output %q", h.wrong, loud.String())
	}
	// A second workload of the same nesting class does not try the stuck
	// strategy again.
	wr = h.runWorkload(treeSumWorkload(5))
	if c := wr.Cells[3]; c.Status != statusDeadlock || !strings.Contains(c.Note, "not run again") {
		t.Errorf("stuck strategy retried: %q %q", c.Status, c.Note)
	}
	unblock()
}

func TestMatchAny(t *testing.T) {
	for _, tc := range []struct {
		name     string
		patterns []string
		want     bool
	}{
		{"tree-sum", nil, true},
		{"tree-sum", []string{"tree"}, true},
		{"matrix/hash/bf8/n1e4", []string{"matrix/*/bf8/*"}, true},
		{"matrix/hash/bf2/n1e4", []string{"matrix/*/bf8/*"}, false},
		{"tasks/uneven", []string{"fib", "tasks/"}, true},
		{"sort", []string{"fib"}, false},
	} {
		if got := matchAny(tc.name, tc.patterns); got != tc.want {
			t.Errorf("matchAny(%q, %q) = %v", tc.name, tc.patterns, got)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want string
	}{{3.2, "3.20ns"}, {1500, "1.50µs"}, {2.5e6, "2.50ms"}, {61e9, "61.0s"}} {
		if got := fmtDur(tc.ns); got != tc.want {
			t.Errorf("fmtDur(%v) = %q, want %q", tc.ns, got, tc.want)
		}
	}
	if got := fibCalls(5); got != 15 {
		t.Errorf("fibCalls(5) = %v, want 15", got)
	}
}

// TestIsolated runs two workloads the way the program does, each in a child
// process (this test binary, through TestMain): the results come back, the
// deadlock seen in the first is remembered for the second, and no goroutine
// is left in this process.
func TestIsolated(t *testing.T) {
	before := cellGoroutines()
	cfg := tinyConfig(t)
	cfg.Isolate = true
	cfg.Workloads = []string{"tree-sum", "matrix/noop/bf2/*"}
	var stdout, stderr bytes.Buffer
	rep, err := run(&cfg, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 0 || rep.Wrong != 0 || len(rep.Results) != 2 {
		t.Fatalf("failed %d, wrong %d, %d results; stderr:\n%s", rep.Failed, rep.Wrong, len(rep.Results), stderr.String())
	}
	for _, wr := range rep.Results {
		for _, c := range wr.Cells {
			switch {
			case c.Status == statusOK && len(c.Samples) > 0 && c.Median > 0:
			case c.Status == statusAbsent && !wr.Workload.supports(c.Strategy):
			case c.Status == statusDeadlock && c.Strategy.mayDeadlock(wr.Workload):
				if wr.Workload.ID != "tree-sum" && !strings.Contains(c.Note, "not run again") {
					t.Errorf("%s / %s: deadlock probed again: %s", wr.Workload.ID, c.Strategy.Name, c.Note)
				}
			default:
				t.Errorf("%s / %s: %s %s", wr.Workload.ID, c.Strategy.Name, c.Status, c.Note)
			}
		}
	}
	if len(rep.AbandonedCells) != 0 {
		t.Errorf("abandoned in this process: %v", rep.AbandonedCells)
	}
	if !strings.Contains(stdout.String(), "tree sum, perfect binary tree") {
		t.Errorf("no table:\n%s", stdout.String())
	}
	waitGoroutines(t, before, nil)
}

// checkTableRows checks that the table shows only strategies that apply:
// no row of dashes for a strategy that does not do a workload's kind of
// work, and one line, not a row each, for the strategies not run again
// after a deadlock.
func checkTableRows(t *testing.T, table string) {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		if strings.Count(line, "–") >= 2 {
			t.Errorf("a row of dashes: %q", line)
		}
		if strings.Contains(line, "not run") && strings.Count(line, ",") < 1 {
			t.Errorf("strategies not run again have a row each: %q", line)
		}
	}
}

// TestHelpHidesChildFlags: -h lists the user's flags only; a child
// process's options travel in its environment.
func TestHelpHidesChildFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := mainWith([]string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d", code)
	}
	help := stderr.String()
	if !strings.Contains(help, "-workloads") {
		t.Fatalf("-h does not list -workloads:\n%s", help)
	}
	if strings.Contains(help, "child") {
		t.Errorf("-h lists internal child flags:\n%s", help)
	}
}

// TestSingle: with -single every strategy that ran has exactly its checked
// run as its one sample, and says so, in this process and in the child
// processes that isolation starts (which must be given the flag).
func TestSingle(t *testing.T) {
	for _, isolate := range []bool{false, true} {
		before := cellGoroutines()
		cfg := tinyConfig(t)
		cfg.Isolate = isolate
		cfg.Single = true
		cfg.Workloads = []string{"matrix/hash/bf8/n200"}
		cfg.Strategies = []string{"forkjoin-fold"}
		var stdout, stderr bytes.Buffer
		rep, err := run(&cfg, &stdout, &stderr)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failed != 0 || rep.Wrong != 0 || len(rep.Results) == 0 {
			t.Fatalf("isolate %v: failed %d, wrong %d, %d results; stderr:\n%s", isolate, rep.Failed, rep.Wrong, len(rep.Results), stderr.String())
		}
		for _, wr := range rep.Results {
			for _, c := range wr.Cells {
				if c.Status != statusOK {
					continue
				}
				if len(c.Samples) != 1 || c.Samples[0].Round != 0 || !strings.Contains(c.Note, "-single") {
					t.Errorf("isolate %v, %s / %s: %d samples (round %v), note %q; want the checked run only",
						isolate, wr.Workload.ID, c.Strategy.Name, len(c.Samples), c.Samples, c.Note)
				}
			}
		}
		waitGoroutines(t, before, nil)
	}
}

// progressLine is a line of the progress report written where stderr is
// not a terminal: "[done/total] workload".
var progressLine = regexp.MustCompile(`^\[(\d+)/(\d+)\] `)

// checkProgress: the progress lines count toward one total that never
// changes, and the count never goes back.
func checkProgress(t *testing.T, stderr string) {
	t.Helper()
	total, last, lines := -1, -1, 0
	for _, line := range strings.Split(stderr, "\n") {
		m := progressLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines++
		done, _ := strconv.Atoi(m[1])
		tot, _ := strconv.Atoi(m[2])
		if total >= 0 && tot != total {
			t.Errorf("progress total moved from %d to %d: %q", total, tot, line)
		}
		if done < last {
			t.Errorf("progress went back from %d to %d: %q", last, done, line)
		}
		total, last = tot, done
	}
	if lines == 0 {
		t.Errorf("no progress line in stderr:\n%s", stderr)
	}
}
