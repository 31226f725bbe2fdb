package forkjoin_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlumbingNotExported: what the packages built on the core use of a
// Worker (internal/core: the intrusive Push/Wait/Completion layer, the
// poll for requests, RecordPanic, Local) is not part of forkjoin's API.
func TestPlumbingNotExported(t *testing.T) {
	exported := exportedNames(t, ".")
	for _, name := range []string{
		"Completion",
		"Worker.Push", "Worker.Wait", "Worker.WorkRequested", "Worker.RequestPending",
		"Worker.RecordPanic", "Worker.Local",
	} {
		if exported[name] {
			t.Errorf("forkjoin exports %s, which only the packages built on it use (internal/core)", name)
		}
	}
	if !exported["Worker.Index"] || !exported["Task"] {
		t.Fatal("exportedNames misses names that are exported")
	}
}

// exportedNames lists the exported top-level names and methods ("T.M") of
// the package in dir, test files aside.
func exportedNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = d.Name.IsExported()
					continue
				}
				recv := d.Recv.List[0].Type
				for {
					switch r := recv.(type) {
					case *ast.StarExpr:
						recv = r.X
						continue
					case *ast.IndexExpr:
						recv = r.X
						continue
					case *ast.IndexListExpr:
						recv = r.X
						continue
					}
					break
				}
				if id, ok := recv.(*ast.Ident); ok && id.IsExported() && d.Name.IsExported() {
					names[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = s.Name.IsExported()
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = n.IsExported()
						}
					}
				}
			}
		}
	}
	return names
}
