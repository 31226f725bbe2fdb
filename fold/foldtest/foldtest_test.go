package foldtest_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/fold/foldtest"
	"github.com/forkjoin-go/forkjoin/internal/leakcheck"
	"github.com/forkjoin-go/forkjoin/internal/testtree"
	"github.com/forkjoin-go/forkjoin/tree"
)

func label(n *foldtest.Node) int { return n.Label }

// brackets writes a tree as "(label child child …)": it depends on the
// order of the children and on where each subtree starts and ends.
var brackets = fold.New(
	func(n *foldtest.Node) string { return "(" + fmt.Sprint(n.Label) },
	func(h *string, c string) { *h += " " + c },
	func(h *string) string { return *h + ")" },
)

func TestCheckPassesCorrectFolds(t *testing.T) {
	leakcheck.Check(t)
	t.Run("sum", func(t *testing.T) {
		foldtest.Check(t, fold.Sum(label), foldtest.Children, foldtest.Trees(300), nil)
	})
	t.Run("preorder", func(t *testing.T) {
		eq := func(a, b fold.List[*foldtest.Node]) bool { return slices.Equal(a.Slice(), b.Slice()) }
		foldtest.Check(t, fold.PreOrder[*foldtest.Node](), foldtest.Children, foldtest.Trees(300), eq)
	})
	t.Run("brackets", func(t *testing.T) {
		foldtest.Check(t, brackets, foldtest.Children, foldtest.Trees(300), nil)
	})
}

// dir is a user's own node type, built from generated shapes.
type dir struct {
	size    int64
	subdirs []*dir
}

func subdirs(d *dir, yield func(*dir) bool) {
	for _, s := range d.subdirs {
		if !yield(s) {
			return
		}
	}
}

// dirs draws trees of dir from Trees(maxNodes).
func dirs(maxNodes int) *rapid.Generator[*dir] {
	return rapid.Map(foldtest.Trees(maxNodes), func(n *foldtest.Node) *dir {
		return foldtest.Build(n, func(label int, kids []*dir) *dir {
			return &dir{size: int64(label % 7), subdirs: kids}
		})
	})
}

func TestCheckOwnNodeType(t *testing.T) {
	leakcheck.Check(t)
	foldtest.Check(t, fold.Sum(func(d *dir) int64 { return d.size }), tree.FromFunc(subdirs), dirs(200), nil)
}

func TestCheckDAGPassesCorrectFolds(t *testing.T) {
	leakcheck.Check(t)
	t.Run("sum", func(t *testing.T) {
		foldtest.CheckDAG(t, fold.Sum(label), foldtest.Children, foldtest.Key, foldtest.DAGs(60), nil)
	})
	t.Run("brackets", func(t *testing.T) {
		foldtest.CheckDAG(t, brackets, foldtest.Children, foldtest.Key, foldtest.DAGs(12), nil)
	})
}

// wrongEnv names the wrong fold TestWrongFold runs, in a child process
// started by TestCheckFailsWrongFolds.
const wrongEnv = "FOLDTEST_WRONG_FOLD"

// overlap is a fold that shares state between nodes, a bug only a
// parallel run shows: it adds up, over all nodes, the number of Inits (of
// any node) between the node's Init and its Finalize. In a sequential fold
// that is the size of the node's subtree less one; when another
// participant folds another subtree meanwhile, it is more.
func overlap() fold.Fold[*foldtest.Node, [2]int64, int64] {
	var inits atomic.Int64
	return fold.New(
		func(*foldtest.Node) [2]int64 {
			runtime.Gosched()
			return [2]int64{inits.Add(1), 0} // when, sum of the children
		},
		func(h *[2]int64, c int64) { h[1] += c },
		func(h *[2]int64) int64 { return inits.Load() - h[0] + h[1] },
	)
}

// TestWrongFold runs Check on a wrong fold when the parent test asks for
// it, and is skipped otherwise: it must fail.
func TestWrongFold(t *testing.T) {
	switch os.Getenv(wrongEnv) {
	case "":
		t.Skip("run by TestCheckFailsWrongFolds")
	case "overlap":
		foldtest.Check(t, overlap(), foldtest.Children, foldtest.Trees(200), nil)
	case "panic":
		f := fold.Sum(func(n *foldtest.Node) int {
			if n.Label == 5 {
				panic("label 5")
			}
			return n.Label
		})
		foldtest.Check(t, f, foldtest.Children, foldtest.Trees(200), nil)
	case "dag-overlap":
		foldtest.CheckDAG(t, overlap(), foldtest.Children, foldtest.Key, foldtest.DAGs(60), nil)
	case "own-type":
		f := fold.Contramap(overlap(), func(d *dir) *foldtest.Node { return &foldtest.Node{Label: int(d.size)} })
		foldtest.Check(t, f, tree.FromFunc(subdirs), dirs(200), nil)
	case "shuffled-children":
		shuffled := tree.FromFunc(func(d *dir, yield func(*dir) bool) {
			for _, i := range rand.Perm(len(d.subdirs)) {
				if !yield(d.subdirs[i]) {
					return
				}
			}
		})
		foldtest.Check(t, fold.Sum(func(d *dir) int64 { return d.size }), shuffled, dirs(200), nil)
	case "kept-result":
		// Finalize returns the heap itself.
		f := fold.New(
			func(d *dir) []int64 { return []int64{d.size} },
			func(h *[]int64, c *[]int64) { *h = append(*h, *c...) },
			func(h *[]int64) *[]int64 { return h },
		)
		foldtest.Check(t, f, tree.FromFunc(subdirs), dirs(200), func(a, b *[]int64) bool { return slices.Equal(*a, *b) })
	case "kept-write":
		// Accumulate keeps its *H; the next Init writes through it.
		var last *int64
		f := fold.New(
			func(d *dir) int64 {
				if last != nil {
					*last++
				}
				return d.size
			},
			func(h *int64, c int64) { *h += c; last = h },
			func(h *int64) int64 { return *h },
		)
		foldtest.Check(t, f, tree.FromFunc(subdirs), dirs(200), nil)
	case "kept-read":
		// Finalize keeps its *H; the parent's Accumulate reads it.
		var last *int64
		f := fold.New(
			func(d *dir) int64 { return d.size },
			func(h *int64, c int64) { *h += c * *last },
			func(h *int64) int64 { last = h; return *h },
		)
		foldtest.Check(t, f, tree.FromFunc(subdirs), dirs(200), nil)
	}
}

// TestCheckFailsWrongFolds: Check and CheckDAG fail a fold whose result
// depends on what runs concurrently, and a fold that panics, and report
// rapid's smallest failing root.
func TestCheckFailsWrongFolds(t *testing.T) {
	for _, c := range []struct {
		wrong, want string
		own         bool // over dir, a node type of the test's own
		// steady: the failure is found again when rapid replays the
		// example (not so for a fold whose result depends on timing).
		steady bool
	}{
		{"overlap", "fold.Run returned", false, false},
		{"panic", "label 5", false, true},
		{"dag-overlap", "fold.RunDAG returned", false, false},
		{"own-type", "fold.Run returned", true, false},
		{"shuffled-children", "the children function is not deterministic: node ", true, true},
		{"kept-result", "Finalize returned a value that points into the node's heap", true, true},
		{"kept-write", "its heap changed between the calls on it", true, true},
		{"kept-read", "when every node's heap has memory of its own: the fold uses a heap after the call", true, true},
	} {
		t.Run(c.wrong, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestWrongFold$", "-test.v", "-rapid.nofailfile")
			cmd.Env = append(os.Environ(), wrongEnv+"="+c.wrong)
			out, err := cmd.CombinedOutput()
			text := string(out)
			if err == nil {
				t.Fatalf("Check passed a wrong fold:\n%s", text)
			}
			wants := []string{"--- FAIL: TestWrongFold", c.want, "[rapid] draw root: foldtest tree of"}
			if c.own {
				// The tree is shown in the drawn Node's labels, the
				// root 0.
				wants[2] = "the root drawn, as a tree of "
				wants = append(wants, " numbered in pre-order", "foldtest.Node): 0")
			}
			for _, want := range wants {
				if !strings.Contains(text, want) {
					t.Fatalf("the failure does not show %q:\n%s", want, text)
				}
			}
			// Under the race detector a wrong fold that writes through a
			// kept pointer is also a data race between participants; the
			// detector's report fails whichever example it happens in, so
			// rapid's replay of the shrunk one may pass.
			if c.steady && !testtree.Race && strings.Contains(text, "flaky") {
				t.Fatalf("rapid could not reproduce the failure:\n%s", text)
			}
			t.Logf("the failure, as reported:\n%s", text)
		})
	}
}

// TestGeneratorsKeepTheirBound: Trees(n) and DAGs(n) draw from 1 to n
// nodes (1 for n below 1), each a distinct *Node with a distinct label.
func TestGeneratorsKeepTheirBound(t *testing.T) {
	for _, c := range []struct {
		name string
		gen  func(maxNodes int) *rapid.Generator[*foldtest.Node]
	}{{"Trees", foldtest.Trees}, {"DAGs", foldtest.DAGs}} {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				bound := rapid.IntRange(-1, 300).Draw(t, "bound")
				root := c.gen(bound).Draw(t, "root")
				labels := map[int]bool{}
				seen := map[*foldtest.Node]bool{}
				stack := []*foldtest.Node{root}
				for len(stack) > 0 {
					n := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					if seen[n] {
						continue
					}
					seen[n] = true
					if labels[n.Label] {
						t.Fatalf("label %d twice in %v", n.Label, root)
					}
					labels[n.Label] = true
					stack = append(stack, n.Kids...)
				}
				if len(seen) < 1 || len(seen) > max(bound, 1) {
					t.Fatalf("%s(%d) drew %d nodes: %v", c.name, bound, len(seen), root)
				}
			})
		})
	}
}
