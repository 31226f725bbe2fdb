// Package readme keeps the README's Go snippets compiling. It has no code
// of its own: its test file holds each snippet of the README's quick start
// inside a test or an example that runs it, and TestSnippetsInREADME checks
// that every Go block of README.md appears in that file, so that a snippet
// edited in one place and not the other fails the tests.
package readme
