package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// closure is the reference: the transitive dependencies of m by a plain
// depth-first search.
func closure(g Graph, m string) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(m string) {
		for _, d := range g[m] {
			if !seen[d] {
				seen[d] = true
				visit(d)
			}
		}
	}
	visit(m)
	return slices.Sorted(maps.Keys(seen))
}

// check compares resolutions with the reference and the resolve counts
// with one per module.
func check(t *testing.T, what string, g Graph, r *Resolver, res []Resolution) {
	t.Helper()
	if len(res) != len(g) {
		t.Fatalf("%s: %d resolutions for %d modules", what, len(res), len(g))
	}
	for i, m := range slices.Sorted(maps.Keys(g)) {
		if res[i].Module != m {
			t.Fatalf("%s: resolution %d is %q, want %q", what, i, res[i].Module, m)
		}
		if want := closure(g, m); !slices.Equal(res[i].Deps, want) {
			t.Errorf("%s: %s depends on %q, want %q", what, m, res[i].Deps, want)
		}
		if n := r.Resolves(m); n != 1 {
			t.Errorf("%s: %s resolved %d times, want once", what, m, n)
		}
	}
}

func TestBuiltin(t *testing.T) {
	g := Builtin()
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	// What the doc comment says about the graph.
	if got := closure(g, "app"); len(got) != 22 {
		t.Errorf("app has %d dependencies, want all 22 other modules", len(got))
	}
	users := 0
	for _, ds := range g {
		if slices.Contains(ds, "log") {
			users++
		}
	}
	// Walked as a tree from app, the graph repeats shared modules.
	asTree := tree.FromSlice(func(m string) []string { return g[m] })
	visits := map[string]int{}
	tree.WalkSeq(asTree, "app", func(m string) bool {
		visits[m]++
		return true
	})
	if nodes := fold.Seq(fold.Size[string](), asTree, "app"); users != 7 || visits["log"] != 12 || nodes != 131 {
		t.Errorf("log has %d direct users and %d paths from app; app's tree has %d nodes; the doc says 7, 12, 131",
			users, visits["log"], nodes)
	}

	r := NewResolver(g, 0)
	res, err := r.ResolveSeq()
	if err != nil {
		t.Fatal(err)
	}
	check(t, "SeqDAG", g, r, res)
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			for i := range 20 {
				delay := time.Duration(0)
				if i == 0 {
					delay = 200 * time.Microsecond // resolves overlap in time
				}
				r := NewResolver(g, delay)
				res, err := r.Resolve(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				check(t, fmt.Sprintf("RunDAG p=%d", par), g, r, res)
			}
		})
	}
}

// randomDAG returns a graph of n modules in which module i depends only on
// modules with larger numbers, so there is no cycle, and many are shared.
func randomDAG(r *rand.Rand, n int) Graph {
	g := Graph{}
	name := func(i int) string { return fmt.Sprintf("m%03d", i) }
	for i := range n {
		var ds []string
		for j := i + 1; j < n; j++ {
			if r.IntN(n) < 4 {
				ds = append(ds, name(j))
			}
		}
		r.Shuffle(len(ds), func(a, b int) { ds[a], ds[b] = ds[b], ds[a] })
		g[name(i)] = ds
	}
	return g
}

func TestRandomGraphs(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	pool.With(2, func(p *pool.Pool) {
		for range 30 {
			g := randomDAG(rnd, 1+rnd.IntN(80))
			r := NewResolver(g, 0)
			res, err := r.Resolve(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			check(t, "RunDAG", g, r, res)
		}
	})
}

func TestCycle(t *testing.T) {
	g := WithCycle(Builtin())
	if slices.Contains(Builtin()["bufpool"], "metrics") {
		t.Fatal("WithCycle changed the built-in graph")
	}
	checkCycle := func(what string, err error) {
		t.Helper()
		var ce *fold.CycleError[string]
		if !errors.As(err, &ce) {
			t.Fatalf("%s: error %v, want a *fold.CycleError[string]", what, err)
		}
		onCycle := []string{"bufpool", "metrics", "http", "net"} // the only cycle
		if !slices.Contains(onCycle, ce.Key) || len(ce.Cycle) != 4 || ce.Cycle[0] != ce.Key {
			t.Fatalf("%s: cycle %q from %q, want the cycle through %q", what, ce.Cycle, ce.Key, onCycle)
		}
		for i, m := range ce.Cycle { // each module followed by one of its dependencies
			next := ce.Cycle[(i+1)%len(ce.Cycle)]
			if !slices.Contains(g[m], next) {
				t.Errorf("%s: cycle %q: %s does not depend on %s", what, ce.Cycle, m, next)
			}
		}
	}
	r := NewResolver(g, 0)
	_, err := r.ResolveSeq()
	checkCycle("SeqDAG", err)
	pool.With(2, func(p *pool.Pool) {
		r := NewResolver(g, 0)
		_, err := r.Resolve(context.Background(), p)
		checkCycle("RunDAG", err)
		for m := range g {
			if n := r.Resolves(m); n != 0 {
				t.Errorf("RunDAG resolved %s %d times before reporting the cycle", m, n)
			}
		}
	})
}

func TestCheck(t *testing.T) {
	g := Builtin()
	g["web"] = append(slices.Clone(g["web"]), "websocket")
	if err := g.Check(); err == nil || err.Error() != "web depends on websocket, which is not in the graph" {
		t.Errorf("Check: %v", err)
	}
}

// durations matches the times the program prints.
var durations = regexp.MustCompile(`[0-9.]+(ns|µs|ms|s)\b`)

const wantOutput = `23 modules resolved in T (HOW, T per resolve)
app       resolved 1x  22 deps: atomicx auth bigint bufpool cli color config crypto env flags html http log metrics net router strutil template tls unicode web yaml
atomicx   resolved 1x   0 deps: -
auth      resolved 1x  13 deps: atomicx bigint bufpool config crypto env http log net strutil tls unicode yaml
bigint    resolved 1x   0 deps: -
bufpool   resolved 1x   0 deps: -
cli       resolved 1x  10 deps: atomicx bufpool color config env flags log strutil unicode yaml
color     resolved 1x   1 deps: env
config    resolved 1x   7 deps: atomicx bufpool env log strutil unicode yaml
crypto    resolved 1x   2 deps: atomicx bigint
env       resolved 1x   0 deps: -
flags     resolved 1x   2 deps: strutil unicode
html      resolved 1x   2 deps: strutil unicode
http      resolved 1x   8 deps: atomicx bigint bufpool crypto env log net tls
log       resolved 1x   3 deps: atomicx bufpool env
metrics   resolved 1x   9 deps: atomicx bigint bufpool crypto env http log net tls
net       resolved 1x   1 deps: bufpool
router    resolved 1x  11 deps: atomicx bigint bufpool crypto env http log net strutil tls unicode
strutil   resolved 1x   1 deps: unicode
template  resolved 1x   4 deps: bufpool html strutil unicode
tls       resolved 1x   5 deps: atomicx bigint bufpool crypto net
unicode   resolved 1x   0 deps: -
web       resolved 1x  17 deps: atomicx auth bigint bufpool config crypto env html http log net router strutil template tls unicode yaml
yaml      resolved 1x   2 deps: strutil unicode
every module resolved exactly once
`

func runDeps(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, durations.ReplaceAllString(out.String(), "T"), errOut.String()
}

func TestRun(t *testing.T) {
	for _, c := range []struct {
		args []string
		how  string
	}{
		{[]string{"-delay", "0", "-p", "2"}, "fold.RunDAG, parallelism 2"},
		{[]string{"-delay", "0", "-seq"}, "fold.SeqDAG"},
	} {
		code, out, errOut := runDeps(c.args...)
		want := strings.Replace(wantOutput, "HOW", c.how, 1)
		if code != 0 || out != want || errOut != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout\n%s\nwant\n%s", c.args, code, errOut, out, want)
		}
	}
	for _, args := range [][]string{{"-cycle", "-delay", "0"}, {"-cycle", "-seq"}} {
		code, out, errOut := runDeps(args...)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "deps: dependency cycle: ") ||
			!strings.Contains(errOut, "bufpool -> metrics") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1 and the cycle", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"-p", "-1"}, {"-delay", "-1s"}, {"extra"}, {"-bad"}} {
		if code, _, errOut := runDeps(args...); code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}
