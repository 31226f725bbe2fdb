// Command deps resolves a module dependency graph with fold.RunDAG: for every
// module it computes the set of modules it depends on, directly or not, and
// it "resolves" each module (the fold's Init, which here just waits a moment,
// as a download would) exactly once, however many modules share it.
//
//	go run ./examples/deps                 # the built-in graph of 23 modules
//	go run ./examples/deps -delay 0 -seq   # sequentially, with fold.SeqDAG
//	go run ./examples/deps -cycle          # add bufpool -> metrics: a cycle
//
// The graph is a DAG, not a tree: log, for instance, is a direct dependency
// of seven modules and reached from app by 12 paths, and a tree fold from
// app would visit 131 nodes for these 23 modules. RunDAG folds each distinct
// module once, in parallel where the graph allows (a module once all of its
// dependencies are done), and passes its result to every module that
// depends on it, in each one's order. A cycle is reported as a
// *fold.CycleError before anything is resolved.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Graph maps each module to its direct dependencies.
type Graph map[string][]string

// Builtin returns the built-in graph: an application and its libraries.
func Builtin() Graph {
	return Graph{
		"app":      {"web", "cli", "config", "log", "metrics"},
		"web":      {"http", "router", "template", "auth", "log"},
		"cli":      {"flags", "config", "log", "color"},
		"http":     {"net", "tls", "log", "bufpool"},
		"router":   {"http", "strutil"},
		"template": {"strutil", "html", "bufpool"},
		"auth":     {"crypto", "http", "config", "log"},
		"config":   {"yaml", "env", "log"},
		"metrics":  {"http", "atomicx", "log"},
		"tls":      {"crypto", "net"},
		"crypto":   {"bigint", "atomicx"},
		"yaml":     {"strutil", "unicode"},
		"html":     {"unicode", "strutil"},
		"color":    {"env"},
		"flags":    {"strutil"},
		"log":      {"bufpool", "atomicx", "env"},
		"net":      {"bufpool"},
		"strutil":  {"unicode"},
		"bigint":   nil,
		"atomicx":  nil,
		"bufpool":  nil,
		"env":      nil,
		"unicode":  nil,
	}
}

// WithCycle returns a copy of g in which bufpool depends on metrics, which
// needs http, which needs bufpool: a cycle.
func WithCycle(g Graph) Graph {
	c := maps.Clone(g)
	c["bufpool"] = append(slices.Clone(c["bufpool"]), "metrics")
	return c
}

// all is the key of the workspace: a root above the graph that depends on
// every module, so that one fold resolves them all.
const all = ""

// Resolution is the result of the fold for a module: the modules it depends
// on, directly or not, in name order. For the workspace root, Modules holds
// the resolution of every module, in name order.
type Resolution struct {
	Module  string
	Deps    []string
	Modules []Resolution
}

// heap is a module's state during the fold: the set of its dependencies so
// far (or, for the root, the resolutions gathered).
type heap struct {
	module string
	deps   map[string]bool
	all    []Resolution
}

// Resolver resolves the modules of a graph and counts how many times each
// one was resolved.
type Resolver struct {
	Graph  Graph
	Delay  time.Duration            // the time one resolve takes
	counts map[string]*atomic.Int64 // resolves per module
}

// NewResolver returns a Resolver for g whose resolves take delay each.
func NewResolver(g Graph, delay time.Duration) *Resolver {
	r := &Resolver{Graph: g, Delay: delay, counts: map[string]*atomic.Int64{}}
	for m := range g {
		r.counts[m] = new(atomic.Int64)
	}
	return r
}

// Resolves returns how many times module m was resolved.
func (r *Resolver) Resolves(m string) int64 { return r.counts[m].Load() }

// deps is the children function: a module's direct dependencies; the root's
// are all modules.
func (r *Resolver) deps(m string, yield func(string) bool) {
	if m == all {
		for _, m := range slices.Sorted(maps.Keys(r.Graph)) {
			if !yield(m) {
				return
			}
		}
		return
	}
	for _, d := range r.Graph[m] {
		if !yield(d) {
			return
		}
	}
}

// Fold returns the resolving fold. Init is the resolve: RunDAG and SeqDAG
// call it once per module.
func (r *Resolver) Fold() fold.Fold[string, heap, Resolution] {
	return fold.Fold[string, heap, Resolution]{
		Init: func(m string) heap {
			if m == all {
				return heap{module: m}
			}
			if c := r.counts[m]; c != nil {
				c.Add(1)
			}
			time.Sleep(r.Delay)
			return heap{module: m, deps: map[string]bool{}}
		},
		Accumulate: func(h *heap, dep Resolution) {
			if h.module == all {
				h.all = append(h.all, dep)
				return
			}
			// dep is shared with the other modules that need it: read only.
			h.deps[dep.Module] = true
			for _, d := range dep.Deps {
				h.deps[d] = true
			}
		},
		Finalize: func(h *heap) Resolution {
			return Resolution{Module: h.module, Deps: slices.Sorted(maps.Keys(h.deps)), Modules: h.all}
		},
	}
}

// Resolve resolves every module of the graph in parallel on p.
func (r *Resolver) Resolve(ctx context.Context, p *pool.Pool) ([]Resolution, error) {
	res, err := fold.RunDAG(ctx, p, r.Fold(), tree.FromFunc(r.deps), all, identity)
	return res.Modules, err
}

// ResolveSeq resolves every module of the graph on the calling goroutine.
func (r *Resolver) ResolveSeq() ([]Resolution, error) {
	res, err := fold.SeqDAG(r.Fold(), tree.FromFunc(r.deps), all, identity)
	return res.Modules, err
}

func identity(m string) string { return m }

// Check reports a dependency on a module that the graph does not define.
func (g Graph) Check() error {
	for _, m := range slices.Sorted(maps.Keys(g)) {
		for _, d := range g[m] {
			if _, ok := g[d]; !ok {
				return fmt.Errorf("%s depends on %s, which is not in the graph", m, d)
			}
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and output streams, for the test.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("deps", flag.ContinueOnError)
	fl.SetOutput(stderr)
	par := fl.Int("p", 0, "parallelism (0: GOMAXPROCS)")
	delay := fl.Duration("delay", 2*time.Millisecond, "how long resolving one module takes")
	seq := fl.Bool("seq", false, "resolve sequentially with fold.SeqDAG")
	cycle := fl.Bool("cycle", false, "add a dependency of bufpool on metrics, which makes a cycle")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *par < 0 || *delay < 0 || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "deps: -p and -delay must be at least 0, and no arguments")
		return 2
	}
	g := Builtin()
	if *cycle {
		g = WithCycle(g)
	}
	if err := g.Check(); err != nil {
		fmt.Fprintln(stderr, "deps:", err)
		return 1
	}

	r := NewResolver(g, *delay)
	var res []Resolution
	var err error
	start := time.Now()
	how := "fold.SeqDAG"
	if *seq {
		res, err = r.ResolveSeq()
	} else {
		pool.With(*par, func(p *pool.Pool) {
			how = fmt.Sprintf("fold.RunDAG, parallelism %d", p.Parallelism())
			res, err = r.Resolve(context.Background(), p)
		})
	}
	elapsed := time.Since(start)
	var ce *fold.CycleError[string]
	if errors.As(err, &ce) {
		fmt.Fprintf(stderr, "deps: dependency cycle: %s -> %s\n", strings.Join(ce.Cycle, " -> "), ce.Key)
		return 1
	}
	if err != nil {
		fmt.Fprintln(stderr, "deps:", err)
		return 1
	}

	fmt.Fprintf(stdout, "%d modules resolved in %v (%s, %v per resolve)\n", len(res), round(elapsed), how, *delay)
	once := true
	for _, m := range res {
		n := r.Resolves(m.Module)
		once = once && n == 1
		deps := strings.Join(m.Deps, " ")
		if deps == "" {
			deps = "-"
		}
		fmt.Fprintf(stdout, "%-9s resolved %dx  %2d deps: %s\n", m.Module, n, len(m.Deps), deps)
	}
	if !once || len(res) != len(g) {
		fmt.Fprintln(stdout, "NOT every module was resolved exactly once")
		return 1
	}
	fmt.Fprintln(stdout, "every module resolved exactly once")
	return 0
}

// round keeps three significant digits of a duration, for reading.
func round(d time.Duration) time.Duration {
	for r := time.Duration(1); ; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
}
