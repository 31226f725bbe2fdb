// Command expr evaluates and prints an arithmetic expression tree with one
// parallel fold. The tree is an AST of numbers, +, -, *, / and unary minus;
// fold.Product runs two folds in the same pass: one computes the value, the
// other the fully parenthesised text. Both depend on the order of the
// operands (1 - (2 - 3) is not (2 - 3) - 1), which the fold contract
// guarantees: a node's Accumulate sees its children in order, one at a time,
// even when the two subtrees were folded on different goroutines.
//
//	go run ./examples/expr '1 - (2 - 3) * -4 / 8'   # parse, evaluate, print
//	go run ./examples/expr -n 1000000 -seed 7       # a random expression of 10^6 nodes
//	go run ./examples/expr -n 20 -print             # a small one, printed in full
//
// For a random expression the program also folds it sequentially (fold.Seq)
// and checks that the parallel fold (fold.Run) found the same value and text.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
	"github.com/forkjoin-go/forkjoin/tree"
)

// Expr is a node of an expression tree.
type Expr struct {
	Op   byte    // 0: the number Num; '+', '-', '*', '/': X Op Y; '~': -X
	Num  float64 // the value of a number
	X, Y *Expr   // the operands (Y is nil for a negation)
}

// Operands is the children function of the tree: X, then Y.
var Operands = tree.FromFunc(func(e *Expr, yield func(*Expr) bool) {
	if e.X != nil && yield(e.X) && e.Y != nil {
		yield(e.Y)
	}
})

// valueHeap is a node's state while its value is computed.
type valueHeap struct {
	op  byte
	n   int // operands seen
	acc float64
}

// Value is the fold that computes an expression's value.
var Value = fold.New(
	func(e *Expr) valueHeap { return valueHeap{op: e.Op, acc: e.Num} },
	func(h *valueHeap, v float64) {
		h.n++
		switch {
		case h.n == 1: // the left operand, or a negation's only one
			h.acc = v
		case h.op == '+':
			h.acc += v
		case h.op == '-':
			h.acc -= v
		case h.op == '*':
			h.acc *= v
		case h.op == '/':
			h.acc /= v
		}
	},
	func(h *valueHeap) float64 {
		if h.op == '~' {
			return -h.acc
		}
		return h.acc
	},
)

// textHeap is a node's state while its text is built.
type textHeap struct {
	op   byte
	text string
}

// Text is the fold that prints an expression fully parenthesised: every
// operation in parentheses, "(1 - (2 - 3))", "(-4)".
var Text = fold.New(
	func(e *Expr) textHeap {
		if e.Op == 0 {
			return textHeap{text: strconv.FormatFloat(e.Num, 'g', -1, 64)}
		}
		return textHeap{op: e.Op}
	},
	func(h *textHeap, s string) {
		switch {
		case h.op == '~':
			h.text = "(-" + s + ")"
		case h.text == "": // the left operand
			h.text = "(" + s
		default:
			h.text += " " + string(h.op) + " " + s + ")"
		}
	},
	func(h *textHeap) string { return h.text },
)

// Both computes the value and the text in one pass.
var Both = fold.Product(Value, Text)

// Eval returns the value and the text of e, folded in parallel on p.
func Eval(p *pool.Pool, e *Expr) (float64, string) {
	r := fold.Run(p, Both, Operands, e)
	return r.First, r.Second
}

// EvalSeq is Eval on the calling goroutine (fold.Seq).
func EvalSeq(e *Expr) (float64, string) {
	r := fold.Seq(Both, Operands, e)
	return r.First, r.Second
}

// Random returns a random expression of n nodes (n >= 1): integers 1..9 at
// the leaves, an operator at every inner node, one in ten a negation. To keep
// the value finite, * and / appear only in subexpressions of at most 8
// nodes, and a divisor is always a number.
func Random(r *rand.Rand, n int) *Expr {
	if n <= 1 {
		return &Expr{Num: float64(1 + r.IntN(9))}
	}
	if n == 2 || r.IntN(10) == 0 {
		return &Expr{Op: '~', X: Random(r, n-1)}
	}
	ops := "+-"
	if n <= 8 {
		ops = "+-*/"
	}
	op := ops[r.IntN(len(ops))]
	left := 1 + r.IntN(n-2) // the left operand has 1..n-2 nodes
	if op == '/' {
		left = n - 2
	}
	return &Expr{Op: op, X: Random(r, left), Y: Random(r, n-1-left)}
}

// Parse parses an expression of numbers, + - * / (left-associative, * and /
// binding tighter), unary minus and parentheses.
func Parse(s string) (*Expr, error) {
	p := &parser{s: s}
	e, err := p.expr()
	if err == nil && p.skip() < len(s) {
		err = p.errorf("unexpected %q", s[p.i])
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("column %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

// skip skips blanks and returns the position of the next token.
func (p *parser) skip() int {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
	return p.i
}

// binary parses operands separated by the operators in ops, left-associative.
func (p *parser) binary(ops string, operand func() (*Expr, error)) (*Expr, error) {
	x, err := operand()
	for err == nil && p.skip() < len(p.s) && strings.IndexByte(ops, p.s[p.i]) >= 0 {
		op := p.s[p.i]
		p.i++
		var y *Expr
		if y, err = operand(); err == nil {
			x = &Expr{Op: op, X: x, Y: y}
		}
	}
	return x, err
}

func (p *parser) expr() (*Expr, error) { return p.binary("+-", p.term) }
func (p *parser) term() (*Expr, error) { return p.binary("*/", p.unary) }

func (p *parser) unary() (*Expr, error) {
	if p.skip() == len(p.s) {
		return nil, p.errorf("unexpected end of expression")
	}
	switch c := p.s[p.i]; {
	case c == '-':
		p.i++
		x, err := p.unary()
		return &Expr{Op: '~', X: x}, err
	case c == '(':
		p.i++
		x, err := p.expr()
		if err == nil && (p.skip() == len(p.s) || p.s[p.i] != ')') {
			err = p.errorf("missing )")
		}
		p.i++
		return x, err
	case c == '.' || '0' <= c && c <= '9':
		start := p.i
		for p.i < len(p.s) && (p.s[p.i] == '.' || '0' <= p.s[p.i] && p.s[p.i] <= '9') {
			p.i++
		}
		tok := p.s[start:p.i]
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			p.i = start
			return nil, p.errorf("bad number %q", tok)
		}
		return &Expr{Num: v}, nil
	default:
		return nil, p.errorf("unexpected %q", c)
	}
}

// Same reports whether two values are the same float64, NaN included.
func Same(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main with its arguments and output streams, for the test.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("expr", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: expr [flags] [expression]  (no expression: a random one)")
		fl.PrintDefaults()
	}
	n := fl.Int("n", 200_000, "nodes of the random expression")
	seed := fl.Uint64("seed", 1, "seed of the random expression")
	par := fl.Int("p", 0, "parallelism (0: GOMAXPROCS)")
	printAll := fl.Bool("print", false, "print the whole text of a random expression")
	runs := fl.Int("runs", 3, "runs of each fold of a random expression; the best time is shown")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *n < 1 || *par < 0 || *runs < 1 {
		fl.Usage()
		return 2
	}

	if fl.NArg() > 0 { // an expression to parse
		src := strings.Join(fl.Args(), " ")
		e, err := Parse(src)
		if err != nil {
			fmt.Fprintf(stderr, "expr: %q: %v\n", src, err)
			return 2
		}
		var v float64
		var text string
		pool.With(*par, func(p *pool.Pool) { v, text = Eval(p, e) })
		fmt.Fprintf(stdout, "%s\n= %s\n", text, strconv.FormatFloat(v, 'g', -1, 64))
		return 0
	}

	e := Random(rand.New(rand.NewPCG(*seed, 0xe4e)), *n)
	shape := fold.Seq(fold.Product(fold.Size[*Expr](), fold.Depth[*Expr]()), Operands, e)
	fmt.Fprintf(stdout, "random expression: %d nodes, depth %d (seed %d)\n", shape.First, shape.Second, *seed)

	var v, sv float64
	var text, stext string
	var tRun, tSeq time.Duration
	agree := true
	parallelism := 0
	pool.With(*par, func(p *pool.Pool) {
		parallelism = p.Parallelism()
		for range *runs { // alternate the two, for a fair comparison on a noisy machine
			start := time.Now()
			v, text = Eval(p, e)
			tRun = best(tRun, time.Since(start))
			start = time.Now()
			sv, stext = EvalSeq(e)
			tSeq = best(tSeq, time.Since(start))
			agree = agree && Same(v, sv) && text == stext
		}
	})

	fmt.Fprintf(stdout, "value: %s\n", strconv.FormatFloat(v, 'g', -1, 64))
	if *printAll {
		fmt.Fprintf(stdout, "text: %s\n", text)
	} else {
		fmt.Fprintf(stdout, "text: %d bytes: %s\n", len(text), abbreviate(text, 72))
	}
	fmt.Fprintf(stdout, "fold.Run %v (parallelism %d), fold.Seq %v, best of %d\n", round(tRun), parallelism, round(tSeq), *runs)
	if !agree {
		fmt.Fprintln(stdout, "fold.Run and fold.Seq DIFFER")
		fmt.Fprintln(stderr, "expr: parallel and sequential results differ")
		return 1
	}
	fmt.Fprintln(stdout, "fold.Run and fold.Seq agree")
	return 0
}

func best(b, d time.Duration) time.Duration {
	if b == 0 || d < b {
		return d
	}
	return b
}

// abbreviate shortens s to about n bytes, keeping both ends.
func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + " … " + s[len(s)-n/2:]
}

// round keeps three significant digits of a duration, for reading.
func round(d time.Duration) time.Duration {
	for r := time.Duration(1); ; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
}
