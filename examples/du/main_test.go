package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/forkjoin-go/forkjoin/pool"
)

// testTree is the tree the tests measure, and the usage they expect,
// computed independently of the fold: the sizes written, the symlink's
// target length, and the directories' own sizes from Lstat.
type testTree struct {
	root string
	// dir is the apparent size of each directory's own inode, by path
	// relative to root ("" for root).
	dir map[string]int64
}

// makeTree builds
//
//	top.txt      42 bytes
//	a/one       100
//	a/two      2000
//	a/shared    700 (hard link: the same file as b/shared2)
//	a/deep/x/y/z  3
//	b/shared2   700 (the same inode as a/shared)
//	b/small       1
//	empty/
//	link         -> a/one (a symlink: 5 bytes, not followed)
func makeTree(t *testing.T) *testTree {
	t.Helper()
	root := t.TempDir()
	write := func(rel string, size int) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte{'x'}, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("top.txt", 42)
	write("a/one", 100)
	write("a/two", 2000)
	write("a/shared", 700)
	write("a/deep/x/y/z", 3)
	write("b/small", 1)
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, "a/shared"), filepath.Join(root, "b/shared2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a/one", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	tt := &testTree{root: root, dir: map[string]int64{}}
	for _, rel := range []string{"", "a", "a/deep", "a/deep/x", "a/deep/x/y", "b", "empty"} {
		fi, err := os.Lstat(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		tt.dir[rel] = fi.Size()
	}
	return tt
}

// Expected subtotals of the full tree.
func (tt *testTree) deep() int64 {
	return tt.dir["a/deep"] + tt.dir["a/deep/x"] + tt.dir["a/deep/x/y"] + 3
}
func (tt *testTree) a() int64 { return tt.dir["a"] + 100 + 2000 + 700 + tt.deep() }
func (tt *testTree) b() int64 { return tt.dir["b"] + 700 + 1 }
func (tt *testTree) total() int64 {
	// The hard-linked 700 bytes are in both a and b, and count once.
	return tt.dir[""] + 42 + 5 + tt.a() + tt.b() - 700 + tt.dir["empty"]
}

// path returns the path the program prints for rel.
func (tt *testTree) path(rel string) string {
	if rel == "" {
		return tt.root
	}
	return tt.root + string(os.PathSeparator) + filepath.FromSlash(rel)
}

// runDU runs the program and returns its exit code, stdout and stderr.
func runDU(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func lines(ls ...any) string {
	var b strings.Builder
	for i := 0; i < len(ls); i += 2 {
		fmt.Fprintf(&b, "%d\t%s\n", ls[i], ls[i+1])
	}
	return b.String()
}

func TestTotals(t *testing.T) {
	tt := makeTree(t)
	for _, p := range []string{"1", "2", "4"} {
		code, out, errOut := runDU(t, "-p", p, tt.root)
		if want := lines(tt.total(), tt.root); code != 0 || out != want || errOut != "" {
			t.Errorf("-p %s: exit %d, stdout %q, stderr %q; want 0, %q, \"\"", p, code, out, errOut, want)
		}
	}
	code, out, _ := runDU(t, "-depth", "1", tt.root)
	want := lines(tt.a(), tt.path("a"), tt.b(), tt.path("b"), tt.dir["empty"], tt.path("empty"), tt.total(), tt.root)
	if code != 0 || out != want {
		t.Errorf("-depth 1: exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
	code, out, _ = runDU(t, "-depth", "9", "-seq", tt.root)
	want = lines(
		tt.dir["a/deep/x/y"]+3, tt.path("a/deep/x/y"),
		tt.dir["a/deep/x"]+tt.dir["a/deep/x/y"]+3, tt.path("a/deep/x"),
		tt.deep(), tt.path("a/deep"),
		tt.a(), tt.path("a"), tt.b(), tt.path("b"), tt.dir["empty"], tt.path("empty"),
		tt.total(), tt.root)
	if code != 0 || out != want {
		t.Errorf("-depth 9 -seq: exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
	// The summary, with -v.
	for _, c := range [][2]string{{"-p=2", "fold.RunCtx, parallelism 2"}, {"-seq", "fold.Seq"}} {
		code, out, errOut := runDU(t, "-v", c[0], tt.root)
		errOut = regexp.MustCompile(`, [0-9.]+(ns|µs|ms|s) \(`).ReplaceAllString(errOut, ", T (")
		wantErr := "du: 15 entries (7 directories), 0 errors, T (" + c[1] + ")\n"
		if code != 0 || out != lines(tt.total(), tt.root) || errOut != wantErr {
			t.Errorf("-v %s: exit %d, stdout %q, stderr %q; want 0, %q, %q", c[0], code, out, errOut, lines(tt.total(), tt.root), wantErr)
		}
	}
	// A file or a symlink as the path: its own size.
	code, out, _ = runDU(t, tt.path("link"))
	if want := lines(5, tt.path("link")); code != 0 || out != want {
		t.Errorf("symlink: exit %d, stdout %q, want %q", code, out, want)
	}
}

func TestPaths(t *testing.T) {
	tt := makeTree(t)
	code, out, _ := runDU(t, "-depth", "1", tt.root+"/")
	want := lines(tt.a(), tt.root+"/a", tt.b(), tt.root+"/b", tt.dir["empty"], tt.root+"/empty", tt.total(), tt.root+"/")
	if code != 0 || out != want {
		t.Errorf("trailing slash: stdout\n%s\nwant\n%s", out, want)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(tt.path("a")); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	code, out, _ = runDU(t, "-depth", "1")
	want = lines(tt.deep(), "./deep", tt.a(), ".")
	if code != 0 || out != want {
		t.Errorf("no path: stdout\n%s\nwant\n%s", out, want)
	}
}

// TestParallelEqualsSeq checks that the parallel fold finds what fold.Seq
// finds, field by field, at several parallelisms.
func TestParallelEqualsSeq(t *testing.T) {
	tt := makeTree(t)
	want, err := DiskUsageSeq(tt.root, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want.Entries != 15 || want.Dirs != 7 || len(want.Linked) != 1 || want.Total() != tt.total() {
		t.Errorf("Seq: %d entries, %d dirs, %d linked, total %d; want 15, 7, 1, %d",
			want.Entries, want.Dirs, len(want.Linked), want.Total(), tt.total())
	}
	for _, par := range []int{1, 2, 3, 8} {
		pool.With(par, func(p *pool.Pool) {
			for range 5 {
				got, err := DiskUsage(context.Background(), p, tt.root, 3)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("p=%d: DiskUsage = %+v, want %+v", par, got, want)
				}
			}
		})
	}
}

// inject makes the file system calls fail for one path while the test runs.
func inject(t *testing.T, dirPath string, keep int, lstatPath string) {
	t.Helper()
	t.Cleanup(func() { readDir, lstat = os.ReadDir, os.Lstat })
	readDir = func(name string) ([]fs.DirEntry, error) {
		if name != dirPath {
			return os.ReadDir(name)
		}
		des, err := os.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return des[:keep], &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	}
	lstat = func(name string) (fs.FileInfo, error) {
		if name == lstatPath {
			return nil, &fs.PathError{Op: "lstat", Path: name, Err: syscall.ENOENT}
		}
		return os.Lstat(name)
	}
}

// An unreadable directory counts its own size, its contents nothing, and
// the walk goes on; the error is printed and the exit status is 1.
func TestUnreadableDirInjected(t *testing.T) {
	tt := makeTree(t)
	inject(t, tt.path("b"), 0, "")
	code, out, errOut := runDU(t, "-depth", "1", tt.root)
	// b's contents are gone; the hard-linked file still counts through a.
	total := tt.total() - 1
	want := lines(tt.a(), tt.path("a"), tt.dir["b"], tt.path("b"), tt.dir["empty"], tt.path("empty"), total, tt.root)
	wantErr := fmt.Sprintf("du: cannot read directory '%s': permission denied\n", tt.path("b"))
	if code != 1 || out != want || errOut != wantErr {
		t.Errorf("exit %d, stdout\n%s\nstderr %q\nwant 1,\n%s\n%q", code, out, errOut, want, wantErr)
	}
	u, err := DiskUsageSeq(tt.root, 0)
	if err != nil || len(u.Errors) != 1 || u.Entries != 13 || u.Total() != total {
		t.Errorf("Seq: err %v, %d errors, %d entries, total %d; want 1, 13, %d", err, len(u.Errors), u.Entries, u.Total(), total)
	}
	var pe *fs.PathError
	if !errors.As(u.Errors[0], &pe) || pe.Path != tt.path("b") || !errors.Is(pe, fs.ErrPermission) {
		t.Errorf("error %v: want a permission *fs.PathError for %s", u.Errors[0], tt.path("b"))
	}
}

// A directory that fails part-way keeps what was read; a file whose Lstat
// fails counts nothing. Both errors are reported, in walk order.
func TestPartialReadAndLstatInjected(t *testing.T) {
	tt := makeTree(t)
	inject(t, tt.path("a"), 2, tt.path("top.txt")) // a lists "deep" and "one", then fails
	for _, par := range []string{"1", "2"} {
		code, out, errOut := runDU(t, "-p", par, "-depth", "1", tt.root)
		a := tt.a() - 2000 - 700 // "shared" and "two" were not read
		total := tt.total() - 2000 - 42
		want := lines(a, tt.path("a"), tt.b(), tt.path("b"), tt.dir["empty"], tt.path("empty"), total, tt.root)
		wantErr := fmt.Sprintf("du: cannot read directory '%s': permission denied\n", tt.path("a")) +
			fmt.Sprintf("du: cannot access '%s': no such file or directory\n", tt.path("top.txt"))
		if code != 1 || out != want || errOut != wantErr {
			t.Errorf("-p %s: exit %d, stdout\n%s\nstderr\n%s\nwant 1,\n%s\n%s", par, code, out, errOut, want, wantErr)
		}
	}
}

// The real thing: a directory that cannot be read, which only an
// unprivileged user sees (root reads it anyway).
func TestUnreadableDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which can read any directory; TestUnreadableDirInjected covers the error path")
	}
	tt := makeTree(t)
	b := tt.path("b")
	if err := os.Chmod(b, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(b, 0o755) })
	code, out, errOut := runDU(t, tt.root)
	want := lines(tt.total()-1, tt.root)
	wantErr := fmt.Sprintf("du: cannot read directory '%s': permission denied\n", b)
	if code != 1 || out != want || errOut != wantErr {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, %q, %q", code, out, errOut, want, wantErr)
	}
	// GNU du counts the same (and fails with status 1 too).
	if du, err := exec.LookPath("du"); err == nil {
		duOut, _ := exec.Command(du, "--apparent-size", "-B1", "-s", tt.root).Output()
		if string(duOut) != want {
			t.Errorf("du says %q, want %q", duOut, want)
		}
	}
}

func TestBadUse(t *testing.T) {
	code, out, errOut := runDU(t, "/no/such/path/at/all")
	want := "du: lstat /no/such/path/at/all: no such file or directory\n"
	if code != 1 || out != "" || errOut != want {
		t.Errorf("missing path: exit %d, stdout %q, stderr %q; want 1, \"\", %q", code, out, errOut, want)
	}
	for _, args := range [][]string{{"-p", "-1"}, {"-depth", "-2"}, {"a", "b"}, {"-nosuchflag"}} {
		if code, _, errOut := runDU(t, args...); code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out2, errOut2 bytes.Buffer
	if code := run(ctx, []string{makeTree(t).root}, &out2, &errOut2); code != 1 || errOut2.String() != "du: interrupted\n" {
		t.Errorf("canceled: exit %d, stderr %q; want 1, \"du: interrupted\\n\"", code, errOut2.String())
	}
}

// duCommand returns the path of GNU du, or skips the test.
func duCommand(t *testing.T) string {
	t.Helper()
	du, err := exec.LookPath("du")
	if err != nil {
		t.Skip("the du command is not installed: nothing to compare with")
	}
	if out, err := exec.Command(du, "--apparent-size", "-B1", "-s", os.TempDir()).Output(); err != nil && len(out) == 0 {
		t.Skipf("%s does not take GNU du's --apparent-size -B1 (%v): nothing to compare with", du, err)
	}
	return du
}

// duLines runs du with args and returns its output lines, sorted.
func duLines(t *testing.T, du string, args ...string) []string {
	t.Helper()
	out, err := exec.Command(du, append([]string{"--apparent-size", "-B1"}, args...)...).Output()
	if err != nil {
		t.Fatalf("du %q: %v", args, err)
	}
	ls := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	slices.Sort(ls)
	return ls
}

func ourLines(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errOut := runDU(t, args...)
	if code != 0 {
		t.Fatalf("du example %q: exit %d, %s", args, code, errOut)
	}
	ls := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	slices.Sort(ls)
	return ls
}

// TestAgainstDu compares the totals with GNU du's on the test tree and on
// directories of the Go installation.
func TestAgainstDu(t *testing.T) {
	du := duCommand(t)
	tt := makeTree(t)
	if got, want := ourLines(t, tt.root), duLines(t, du, "-s", tt.root); !slices.Equal(got, want) {
		t.Errorf("test tree: got %q, du says %q", got, want)
	}
	if want := []string{strconv.FormatInt(tt.total(), 10) + "\t" + tt.root}; !slices.Equal(ourLines(t, tt.root), want) {
		t.Errorf("du disagrees with the expected total %d", tt.total())
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	for _, dir := range []string{filepath.Join(src, "fmt"), filepath.Join(src, "go")} {
		if got, want := ourLines(t, dir), duLines(t, du, "-s", dir); !slices.Equal(got, want) {
			t.Errorf("%s: got %q, du says %q", dir, got, want)
		}
	}
	// Subtotals too, where no file has two links.
	dir := filepath.Join(src, "go")
	if got, want := ourLines(t, "-depth", "2", dir), duLines(t, du, "-d", "2", dir); !slices.Equal(got, want) {
		t.Errorf("%s -depth 2:\n got %q\nwant %q", dir, got, want)
	}
}
