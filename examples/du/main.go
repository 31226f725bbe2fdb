// Command du reports the disk usage of a directory tree, computed by a
// parallel fold over the file system: the nodes are paths, the children of
// a directory are its entries (os.ReadDir), and each node's result is the
// usage of its subtree.
//
//	go run ./examples/du                  # the current directory
//	go run ./examples/du -depth 1 -v /usr # subtotals one level down, and a summary
//
// What is counted is exactly what `du -s --apparent-size -B1 PATH` counts
// (GNU du): the apparent size (st_size, from Lstat) in bytes of every entry
// under PATH, PATH itself included — regular files, directories themselves,
// symbolic links (the length of the target they hold; links are never
// followed) and special files — with a file that has several hard links
// counted once however many of its names appear. A directory that cannot be
// read still counts its own size, its contents count 0, and the error is
// recorded and printed to stderr; the walk goes on, and the exit status is 1
// (as du does).
//
// With -depth N, the program prints a subtotal for every directory down to
// N levels below PATH, children before their parent, like `du -d N`. Children
// are visited in name order. One choice differs from du: du charges a
// hard-linked file to whichever of its directories it meets first, so its
// subtotals depend on the order it reads directories in; here a subtotal
// counts, once, every hard-linked file that has a name inside that
// directory. The grand total is the same either way.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// The file system calls, as variables so that the test can inject failures.
var (
	readDir = os.ReadDir
	lstat   = os.Lstat
)

// entry is a node of the fold: a path to measure, or an error met while
// reading a directory (a pseudo-entry that is a child of that directory).
type entry struct {
	path  string
	depth int   // 0 for the root
	dir   bool  // a directory, as its parent's listing says (Lstat for the root)
	err   error // for the pseudo-entry of an unreadable directory
}

// fileID identifies an inode, to count hard-linked files once.
type fileID struct{ dev, ino uint64 }

// Line is one subtotal printed: the usage of the directory at Path.
type Line struct {
	Size int64
	Path string
}

// Usage is the result of the fold for a subtree.
type Usage struct {
	Bytes   int64            // apparent size of the entries that have one link
	Linked  map[fileID]int64 // sizes of the files with several links, once per inode
	Entries int64            // entries measured, directories included
	Dirs    int64            // directories measured
	Errors  []error          // errors met, in walk order
	Lines   []Line           // subtotals to print, children before parents
}

// Total is the apparent size of the subtree in bytes.
func (u *Usage) Total() int64 {
	t := u.Bytes
	for _, size := range u.Linked {
		t += size
	}
	return t
}

// heap is a node's state during the fold: the entry, what Lstat said, and
// the usage summed so far.
type heap struct {
	e        entry
	measured bool // Lstat succeeded
	isDir    bool // and found a directory
	u        Usage
}

// children lists the entries of a directory in name order. A directory that
// cannot be read (entirely or partly) gets the error as one more child.
func children(e entry, yield func(entry) bool) {
	if !e.dir || e.err != nil {
		return
	}
	des, err := readDir(e.path) // sorted by name; on error, what was read
	for _, de := range des {
		if !yield(entry{path: join(e.path, de.Name()), depth: e.depth + 1, dir: de.IsDir()}) {
			return
		}
	}
	if err != nil {
		yield(entry{path: e.path, depth: e.depth + 1, err: err})
	}
}

// join appends a name to a directory path the way du prints it: "." and
// "a/" give "./x" and "a/x".
func join(dir, name string) string {
	if strings.HasSuffix(dir, string(os.PathSeparator)) {
		return dir + name
	}
	return dir + string(os.PathSeparator) + name
}

// NewFold returns the disk-usage fold. Subtotals are recorded for the root
// and for the directories at most maxDepth levels below it.
func NewFold(maxDepth int) fold.Fold[entry, heap, Usage] {
	return fold.Fold[entry, heap, Usage]{
		Init: func(e entry) heap {
			h := heap{e: e}
			if e.err != nil {
				h.u.Errors = []error{e.err}
				return h
			}
			fi, err := lstat(e.path)
			if err != nil {
				h.u.Errors = []error{err}
				return h
			}
			h.measured, h.isDir = true, fi.IsDir()
			h.u.Entries = 1
			if h.isDir {
				h.u.Dirs = 1
			}
			size := max(fi.Size(), 0)
			if id, nlink, ok := identify(fi); ok && !h.isDir && nlink > 1 {
				h.u.Linked = map[fileID]int64{id: size}
			} else {
				h.u.Bytes = size
			}
			return h
		},
		Accumulate: func(h *heap, c Usage) {
			u := &h.u
			u.Bytes += c.Bytes
			u.Entries += c.Entries
			u.Dirs += c.Dirs
			u.Errors = append(u.Errors, c.Errors...)
			u.Lines = append(u.Lines, c.Lines...)
			if len(c.Linked) > len(u.Linked) {
				u.Linked, c.Linked = c.Linked, u.Linked // merge the smaller map into the larger
			}
			for id, size := range c.Linked {
				u.Linked[id] = size
			}
		},
		Finalize: func(h *heap) Usage {
			e := h.e
			if h.measured && (e.depth == 0 || h.isDir && e.depth <= maxDepth) {
				h.u.Lines = append(h.u.Lines, Line{h.u.Total(), e.path})
			}
			return h.u
		},
	}
}

// root returns the entry for the path to measure, or the Lstat error.
func root(path string) (entry, error) {
	fi, err := lstat(path)
	if err != nil {
		return entry{}, err
	}
	return entry{path: path, dir: fi.IsDir()}, nil
}

// DiskUsage measures the tree below path in parallel on p. The error is
// ctx's error, or Lstat's for path itself; errors below path are in Usage.
func DiskUsage(ctx context.Context, p *pool.Pool, path string, maxDepth int) (Usage, error) {
	e, err := root(path)
	if err != nil {
		return Usage{}, err
	}
	return fold.RunCtx(ctx, p, NewFold(maxDepth), tree.FromFunc(children), e)
}

// DiskUsageSeq is DiskUsage on the calling goroutine, with fold.Seq.
func DiskUsageSeq(path string, maxDepth int) (Usage, error) {
	e, err := root(path)
	if err != nil {
		return Usage{}, err
	}
	return fold.Seq(NewFold(maxDepth), tree.FromFunc(children), e), nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is main with its context, arguments and output streams, for the test.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("du", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: du [-p n] [-depth n] [-seq] [-v] [path]")
		fl.PrintDefaults()
	}
	par := fl.Int("p", 0, "parallelism (0: GOMAXPROCS)")
	depth := fl.Int("depth", 0, "print subtotals of directories down to this depth, like du -d")
	seq := fl.Bool("seq", false, "fold sequentially (fold.Seq) instead of in parallel")
	verbose := fl.Bool("v", false, "print a summary (entries, errors, time) to stderr")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *par < 0 || *depth < 0 || fl.NArg() > 1 {
		fl.Usage()
		return 2
	}
	path := "."
	if fl.NArg() == 1 {
		path = fl.Arg(0)
	}

	start := time.Now()
	var u Usage
	var err error
	how := "fold.Seq"
	if *seq {
		u, err = DiskUsageSeq(path, *depth)
	} else {
		pool.With(*par, func(p *pool.Pool) {
			how = fmt.Sprintf("fold.RunCtx, parallelism %d", p.Parallelism())
			u, err = DiskUsage(ctx, p, path, *depth)
		})
	}
	elapsed := time.Since(start)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			err = errors.New("interrupted")
		}
		fmt.Fprintln(stderr, "du:", err)
		return 1
	}
	for _, l := range u.Lines {
		fmt.Fprintf(stdout, "%d\t%s\n", l.Size, l.Path)
	}
	for _, err := range u.Errors {
		fmt.Fprintln(stderr, "du:", describe(err))
	}
	if *verbose {
		fmt.Fprintf(stderr, "du: %d entries (%d directories), %d errors, %v (%s)\n",
			u.Entries, u.Dirs, len(u.Errors), round(elapsed), how)
	}
	if len(u.Errors) > 0 {
		return 1
	}
	return 0
}

// describe words an error like du does for the common cases.
func describe(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch pe.Op {
		case "open", "readdirent", "readdir":
			return fmt.Sprintf("cannot read directory '%s': %v", pe.Path, pe.Err)
		case "lstat":
			return fmt.Sprintf("cannot access '%s': %v", pe.Path, pe.Err)
		}
	}
	return err.Error()
}

// round keeps three significant digits of a duration, for reading.
func round(d time.Duration) time.Duration {
	for r := time.Duration(1); ; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
}
