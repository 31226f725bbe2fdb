// Package docnames checks that the API names the documentation mentions
// exist. It has no code of its own: its test reads README.md and docs/*.md,
// collects every name qualified by one of the module's public packages
// (`fold.RunDAG`, `forkjoin.Group.Wait`, `pool.Stats`), and looks each one
// up among the exported declarations of that package's source, parsed with
// go/parser. A renamed or removed function that the docs still name fails
// the test (TestDocNames), as `go vet` fails for code.
package docnames
