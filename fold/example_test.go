package fold_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// dir is a small file tree: a name and a size for files, children for
// directories.
type dir struct {
	name  string
	size  int
	files []*dir
}

var root = &dir{name: "/", files: []*dir{
	{name: "bin", files: []*dir{{name: "sh", size: 120}, {name: "ls", size: 140}}},
	{name: "etc", files: []*dir{{name: "hosts", size: 2}}},
	{name: "README", size: 10},
}}

var files = tree.FromSlice(func(d *dir) []*dir { return d.files })

func name(d *dir) string { return d.name }

func ExampleFold() {
	// Render the tree as nested lists: a fold whose result depends on the
	// order of the children.
	render := fold.Fold[*dir, []string, string]{
		Init:       func(d *dir) []string { return []string{d.name} },
		Accumulate: func(h *[]string, child string) { *h = append(*h, child) },
		Finalize: func(h *[]string) string {
			if len(*h) == 1 {
				return (*h)[0]
			}
			return (*h)[0] + "(" + strings.Join((*h)[1:], " ") + ")"
		},
	}
	fmt.Println(fold.Seq(render, files, root))
	// Output: /(bin(sh ls) etc(hosts) README)
}

func ExampleNew() {
	// The largest file.
	largest := fold.New(
		func(d *dir) int { return d.size },
		func(h *int, child int) { *h = max(*h, child) },
		func(h *int) int { return *h },
	)
	fmt.Println(fold.Seq(largest, files, root))
	// Output: 140
}

func ExampleSeq() {
	total := fold.Sum(func(d *dir) int { return d.size })
	fmt.Println(fold.Seq(total, files, root))
	// Seq needs no recursion: a chain of a million nodes is fine.
	chain := tree.FromFunc(func(i int, yield func(int) bool) {
		if i < 999_999 {
			yield(i + 1)
		}
	})
	fmt.Println(fold.Seq(fold.Depth[int](), chain, 0))
	// Output:
	// 272
	// 1000000
}

// errTooBig is the error of the FoldErr examples.
var errTooBig = errors.New("file too big")

func ExampleFoldErr() {
	// Sum the sizes, failing on a file over a limit.
	limited := fold.FoldErr[*dir, int, int]{
		Init: func(d *dir) (int, error) {
			if d.size > 130 {
				return 0, fmt.Errorf("%s: %w", d.name, errTooBig)
			}
			return d.size, nil
		},
		Accumulate: func(h *int, c int) error { *h += c; return nil },
		Finalize:   func(h *int) (int, error) { return *h, nil },
	}
	_, err := fold.SeqErr(limited, files, root)
	fmt.Println(err, errors.Is(err, errTooBig))
	// Output: ls: file too big true
}

func ExampleNewErr() {
	// Fail when a directory holds more than 2 entries.
	crowded := fold.NewErr(
		func(d *dir) (int, error) { return 0, nil },
		func(h *int, _ struct{}) error {
			if *h++; *h > 2 {
				return errors.New("crowded directory")
			}
			return nil
		},
		func(h *int) (struct{}, error) { return struct{}{}, nil },
	)
	_, err := fold.SeqErr(crowded, files, root)
	fmt.Println(err)
	// Output: crowded directory
}

func ExampleSeqErr() {
	n, err := fold.SeqErr(fold.Lift(fold.Size[*dir]()), files, root)
	fmt.Println(n, err)
	// Output: 7 <nil>
}

func ExampleLift() {
	// Combine an infallible fold with a check that may fail.
	sum := fold.Lift(fold.Sum(func(d *dir) int { return d.size }))
	checked := sum
	checked.Init = func(d *dir) (int, error) {
		if strings.HasPrefix(d.name, ".") {
			return 0, errors.New("hidden file")
		}
		return sum.Init(d)
	}
	fmt.Println(fold.SeqErr(checked, files, root))
	// Output: 272 <nil>
}

func ExampleFinish() {
	mean := fold.Finish(
		fold.Product(fold.Sum(func(d *dir) int { return d.size }), fold.Size[*dir]()),
		func(p fold.Pair[int, int]) float64 { return float64(p.First) / float64(p.Second) },
	)
	fmt.Printf("%.2f\n", mean.Seq(files, root))
	// Output: 38.86
}

func ExampleFinished() {
	// The fold inside a Finished runs with any executor; Root maps its
	// result afterwards.
	kb := fold.Finish(fold.Sum(func(d *dir) int { return d.size }), func(b int) string {
		return fmt.Sprintf("%d bytes", b)
	})
	r, err := fold.SeqDAG(kb.Fold, files, root, name)
	fmt.Println(kb.Root(r), err)
	// Output: 272 bytes <nil>
}

func ExampleFinished_Seq() {
	names := fold.Finish(fold.PreOrder[*dir](), func(l fold.List[*dir]) string {
		var b strings.Builder
		for d := range l.All() {
			b.WriteString(d.name + " ")
		}
		return b.String()
	})
	fmt.Println(names.Seq(files, root))
	// Output: / bin sh ls etc hosts README
}

func ExampleProduct() {
	both := fold.Product(fold.Size[*dir](), fold.Depth[*dir]())
	r := fold.Seq(both, files, root)
	fmt.Println("nodes", r.First, "depth", r.Second)
	// Output: nodes 7 depth 3
}

func ExamplePair() {
	p := fold.Pair[string, int]{First: "answer", Second: 42}
	fmt.Println(p.First, p.Second)
	// Output: answer 42
}

func ExampleContramap() {
	// A fold over ints reused for *dir by projecting each node to its size.
	sizes := fold.Sum(func(n int) int { return n })
	total := fold.Contramap(sizes, func(d *dir) int { return d.size })
	fmt.Println(fold.Seq(total, files, root))
	// Output: 272
}

func ExampleHooks() {
	// Log each subtree's result as it is finalised: Finalize runs in
	// post-order (children before their parent).
	logged := fold.Wrap(fold.Sum(func(d *dir) int { return d.size }), fold.Hooks[*dir, int, int]{
		Finalize: func(h *int, next func(*int) int) int {
			r := next(h)
			fmt.Println("subtree", r)
			return r
		},
	})
	fold.Seq(logged, files, root)
	// Output:
	// subtree 120
	// subtree 140
	// subtree 260
	// subtree 2
	// subtree 2
	// subtree 10
	// subtree 272
}

func ExampleWrap() {
	// Count the callback calls of a fold.
	var inits, accs, fins int
	counted := fold.Wrap(fold.Size[*dir](), fold.Hooks[*dir, int, int]{
		Init:       func(d *dir, next func(*dir) int) int { inits++; return next(d) },
		Accumulate: func(h *int, c int, next func(*int, int)) { accs++; next(h, c) },
		Finalize:   func(h *int, next func(*int) int) int { fins++; return next(h) },
	})
	fmt.Println(fold.Seq(counted, files, root), inits, accs, fins)
	// Output: 7 7 6 7
}

func ExampleSum() {
	fmt.Println(fold.Seq(fold.Sum(func(d *dir) float64 { return float64(d.size) / 2 }), files, root))
	// Output: 136
}

func ExampleNumber() {
	// Any type whose underlying type is a number works with Sum.
	type bytes uint64
	total := fold.Sum(func(d *dir) bytes { return bytes(d.size) })
	fmt.Println(fold.Seq(total, files, root))
	// Output: 272
}

func ExampleCount() {
	fmt.Println(fold.Seq(fold.Size[*dir](), files, root))
	// Output: 7
}

func ExampleDepth() {
	fmt.Println(fold.Seq(fold.Depth[*dir](), files, root))
	// Output: 3
}

func ExamplePreOrder() {
	l := fold.Seq(fold.PreOrder[*dir](), files, root)
	for _, d := range l.Slice() {
		fmt.Print(d.name, " ")
	}
	fmt.Println()
	// Output: / bin sh ls etc hosts README
}

func ExampleList() {
	l := fold.Seq(fold.PreOrder[*dir](), files, root.files[0])
	fmt.Println(l.Len(), len(l.Slice()))
	// Output: 3 3
}

func ExampleList_Len() {
	fmt.Println(fold.Seq(fold.PreOrder[*dir](), files, root).Len())
	// Output: 7
}

func ExampleList_All() {
	for d := range fold.Seq(fold.PreOrder[*dir](), files, root).All() {
		if d.size > 100 {
			fmt.Println(d.name)
		}
	}
	// Output:
	// sh
	// ls
}

func ExampleList_Slice() {
	s := fold.Seq(fold.PreOrder[*dir](), files, root).Slice()
	fmt.Println(s[0].name, s[len(s)-1].name)
	// Output: / README
}

func ExampleSeqDAG() {
	// Package dependencies: "app" reaches "log" through two paths, but
	// log's size is computed once and added per path.
	deps := map[string][]string{"app": {"http", "db"}, "http": {"log"}, "db": {"log"}}
	size := map[string]int{"app": 5, "http": 3, "db": 4, "log": 1}
	g := tree.FromSlice(func(p string) []string { return deps[p] })
	inits := 0
	f := fold.Sum(func(p string) int { inits++; return size[p] })
	r, err := fold.SeqDAG(f, g, "app", func(p string) string { return p })
	fmt.Println(r, err, inits)
	// Output: 14 <nil> 4
}

func ExampleCycleError() {
	deps := map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}
	g := tree.FromSlice(func(p string) []string { return deps[p] })
	_, err := fold.SeqDAG(fold.Size[string](), g, "a", func(p string) string { return p })
	var cycle *fold.CycleError[string]
	if errors.As(err, &cycle) {
		fmt.Println(cycle.Key, cycle.Cycle)
	}
	fmt.Println(err)
	// Output:
	// a [a b c]
	// fold: cycle in graph: node a reaches itself: a → b → c → a
}

// A nil callback is a programming error: it panics where it is passed,
// with an error that wraps ErrNilFunc and names the argument.
func ExampleErrNilFunc() {
	defer func() {
		err, _ := recover().(error)
		fmt.Println(errors.Is(err, fold.ErrNilFunc), err)
	}()
	fold.New[*dir, int, int](nil, nil, nil)
	// Output: true fold.New: fold: nil function: init
}

func ExampleRun() {
	// The same fold as Seq, in parallel, with the same answer; child order
	// is kept for order-sensitive folds too.
	render := fold.Fold[*dir, []string, string]{
		Init:       func(d *dir) []string { return []string{d.name} },
		Accumulate: func(h *[]string, child string) { *h = append(*h, child) },
		Finalize: func(h *[]string) string {
			if len(*h) == 1 {
				return (*h)[0]
			}
			return (*h)[0] + "(" + strings.Join((*h)[1:], " ") + ")"
		},
	}
	pool.With(2, func(p *pool.Pool) {
		fmt.Println(fold.Run(p, render, files, root))
	})
	// Output: /(bin(sh ls) etc(hosts) README)
}

func ExampleRunCtx() {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // already done: the fold does not start
	pool.With(2, func(p *pool.Pool) {
		_, err := fold.RunCtx(ctx, p, fold.Size[*dir](), files, root)
		fmt.Println(err)
	})
	// Output: context canceled
}

func ExampleRunErr() {
	errEmpty := errors.New("empty file")
	sizes := fold.NewErr(
		func(d *dir) (int, error) {
			if d.files == nil && d.size == 0 {
				return 0, fmt.Errorf("%s: %w", d.name, errEmpty)
			}
			return d.size, nil
		},
		func(h *int, c int) error { *h += c; return nil },
		func(h *int) (int, error) { return *h, nil },
	)
	pool.With(2, func(p *pool.Pool) {
		total, err := fold.RunErr(context.Background(), p, sizes, files, root)
		fmt.Println(total, err)
	})
	// Output: 272 <nil>
}

func ExampleRunDAG() {
	// Two parents share one child: with RunDAG its Init runs once.
	type mod struct {
		name string
		deps []*mod
	}
	base := &mod{name: "base"}
	app := &mod{name: "app", deps: []*mod{{name: "http", deps: []*mod{base}}, {name: "db", deps: []*mod{base}}}}
	inits := 0
	count := fold.New(
		func(m *mod) int { inits++; return 1 }, // RunDAG calls Init once per key, never concurrently for one key
		func(h *int, c int) { *h += c },
		func(h *int) int { return *h },
	)
	g := tree.FromSlice(func(m *mod) []*mod { return m.deps })
	pool.With(1, func(p *pool.Pool) {
		n, err := fold.RunDAG(context.Background(), p, count, g, app, func(m *mod) string { return m.name })
		fmt.Println(n, inits, err)
	})
	// Output: 5 4 <nil>
}

func ExampleFinished_Run() {
	avg := fold.Finish(fold.Product(fold.Sum(func(d *dir) int { return d.size }), fold.Size[*dir]()),
		func(r fold.Pair[int, int]) float64 { return float64(r.First) / float64(r.Second) })
	pool.With(2, func(p *pool.Pool) {
		fmt.Printf("%.1f\n", avg.Run(p, files, root))
	})
	// Output: 38.9
}
