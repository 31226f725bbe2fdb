package docnames

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// packages maps the package names the docs qualify names with to their
// directories, relative to the module root.
var packages = map[string]string{
	"pool":     "pool",
	"forkjoin": "forkjoin",
	"tree":     "tree",
	"fold":     "fold",
	"foldtest": "fold/foldtest",
	"dispatch": "internal/dispatch",
	"poolcore": "internal/poolcore",
	"core":     "internal/core",
}

// internalPkg marks the packages of packages under internal/: the docs
// name their declarations qualified only (dispatch.Recovered), so an
// unqualified Type.Member is looked up among the public packages alone.
var internalPkg = map[string]bool{"dispatch": true, "poolcore": true, "core": true}

// qualified matches pkg.Name and pkg.Type.Member, where pkg is one of
// packages and the names are exported.
var qualified = regexp.MustCompile(`\b(pool|forkjoin|tree|fold|foldtest|dispatch|poolcore|core)\.([A-Z]\w*)(?:\.([A-Z]\w*))?`)

// member matches Type.Member with no package before it (`Future.Join`):
// checked when Type is an exported type of exactly one of packages.
var member = regexp.MustCompile(`(?:^|[^.\w])([A-Z]\w*)\.([A-Z]\w*)\b`)

// testFunc matches the functions of a test file that the docs may name.
var testFunc = regexp.MustCompile(`^(Test|Benchmark|Example|Fuzz)`)

// api is the exported API of one package: its top-level names, and the
// members (methods and fields) of each of its types.
type api struct {
	names   map[string]bool
	members map[string]map[string]bool
}

func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", dir, err)
	}
	return dir
}

// readAPI parses the Go files of dir: the exported declarations of its
// package, and the tests, benchmarks and examples of its test files.
func readAPI(t *testing.T, dir string) api {
	a := api{names: map[string]bool{}, members: map[string]map[string]bool{}}
	member := func(typ, name string) {
		if a.members[typ] == nil {
			a.members[typ] = map[string]bool{}
		}
		a.members[typ][name] = true
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		testFile := strings.HasSuffix(file, "_test.go")
		for _, d := range f.Decls {
			if testFile {
				// The docs name tests, benchmarks and examples as the
				// package's: pool.TestStatsParkedTime.
				if d, ok := d.(*ast.FuncDecl); ok && d.Recv == nil && testFunc.MatchString(d.Name.Name) {
					a.names[d.Name.Name] = true
				}
				continue
			}
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					a.names[d.Name.Name] = true
					continue
				}
				member(receiverType(d.Recv.List[0].Type), d.Name.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						a.names[s.Name.Name] = true
						fieldsOf(s, func(name string) { member(s.Name.Name, name) })
					case *ast.ValueSpec:
						for _, n := range s.Names {
							a.names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return a
}

// receiverType returns the name of a method's receiver type: T from T,
// *T, T[P] or *T[P].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// fieldsOf calls add with the names of a struct type's fields (embedded
// ones by their type's name) and of an interface type's methods.
func fieldsOf(s *ast.TypeSpec, add func(string)) {
	var list *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	default:
		return
	}
	for _, f := range list.List {
		if len(f.Names) == 0 {
			add(receiverType(f.Type))
		}
		for _, n := range f.Names {
			add(n.Name)
		}
	}
}

// TestDocNames: every pkg.Name and pkg.Type.Member that README.md and
// docs/*.md mention exists in that package, and so does every Type.Member
// whose Type is one of the public packages' exported types.
func TestDocNames(t *testing.T) {
	root := moduleRoot(t)
	apis := map[string]api{}
	for pkg, dir := range packages {
		apis[pkg] = readAPI(t, filepath.Join(root, dir))
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	checked := 0
	var missing []string
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for i, line := range strings.Split(string(text), "\n") {
			for _, m := range qualified.FindAllStringSubmatch(line, -1) {
				a, name, mem := apis[m[1]], m[2], m[3]
				checked++
				switch {
				case !a.names[name]:
					missing = append(missing, rel+":"+itoa(i+1)+": "+m[1]+"."+name)
				case mem != "" && a.members[name] != nil && !a.members[name][mem]:
					missing = append(missing, rel+":"+itoa(i+1)+": "+m[0]+" (no "+mem+" on "+name+")")
				}
			}
			for _, m := range member.FindAllStringSubmatch(line, -1) {
				typ, mem := m[1], m[2]
				var owner []api
				for pkg, a := range apis {
					if !internalPkg[pkg] && a.members[typ] != nil {
						owner = append(owner, a)
					}
				}
				if len(owner) != 1 {
					continue // not one of ours, or ambiguous
				}
				checked++
				if !owner[0].members[typ][mem] {
					missing = append(missing, rel+":"+itoa(i+1)+": "+typ+"."+mem)
				}
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d of %d qualified names in the docs do not exist:\n%s", len(missing), checked, strings.Join(missing, "\n"))
	}
	if checked < 100 {
		t.Errorf("only %d qualified names found in the docs: the pattern or the paths are wrong", checked)
	}
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
