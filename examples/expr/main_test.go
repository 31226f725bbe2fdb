package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/forkjoin-go/forkjoin/fold"
	"github.com/forkjoin-go/forkjoin/pool"
)

// evalRec and printRec are the plain recursive reference.
func evalRec(e *Expr) float64 {
	switch e.Op {
	case 0:
		return e.Num
	case '~':
		return -evalRec(e.X)
	case '+':
		return evalRec(e.X) + evalRec(e.Y)
	case '-':
		return evalRec(e.X) - evalRec(e.Y)
	case '*':
		return evalRec(e.X) * evalRec(e.Y)
	default:
		return evalRec(e.X) / evalRec(e.Y)
	}
}

func printRec(e *Expr) string {
	switch e.Op {
	case 0:
		return strconv.FormatFloat(e.Num, 'g', -1, 64)
	case '~':
		return "(-" + printRec(e.X) + ")"
	default:
		return "(" + printRec(e.X) + " " + string(e.Op) + " " + printRec(e.Y) + ")"
	}
}

func TestFixed(t *testing.T) {
	cases := []struct {
		src, text string
		value     float64
	}{
		{"1 - (2 - 3)", "(1 - (2 - 3))", 2},
		{"1 - 2 - 3", "((1 - 2) - 3)", -4},
		{"(1 - 2) - 3", "((1 - 2) - 3)", -4},
		{"2 * 3 + 4", "((2 * 3) + 4)", 10},
		{"2 + 3 * 4", "(2 + (3 * 4))", 14},
		{"8 / 4 / 2", "((8 / 4) / 2)", 1},
		{"8 / (4 / 2)", "(8 / (4 / 2))", 4},
		{"-(1 - 4) * 2", "((-(1 - 4)) * 2)", 6},
		{"--3", "(-(-3))", 3},
		{" 1.5\t", "1.5", 1.5},
		{"0.25 * -8", "(0.25 * (-8))", -2},
		{"1 / (3 - 3)", "(1 / (3 - 3))", math.Inf(1)},
		{"((((7))))", "7", 7},
	}
	pool.With(2, func(p *pool.Pool) {
		for _, c := range cases {
			e, err := Parse(c.src)
			if err != nil {
				t.Errorf("Parse(%q): %v", c.src, err)
				continue
			}
			v, text := Eval(p, e)
			sv, stext := EvalSeq(e)
			if text != c.text || v != c.value || stext != c.text || sv != c.value {
				t.Errorf("%q: Run = %v %q, Seq = %v %q; want %v %q", c.src, v, text, sv, stext, c.value, c.text)
			}
		}
	})
}

func TestParseErrors(t *testing.T) {
	for src, want := range map[string]string{
		"":        "column 1: unexpected end of expression",
		"1 +":     "column 4: unexpected end of expression",
		"(1":      "column 3: missing )",
		"(1 2)":   "column 4: missing )",
		"1..2":    `column 1: bad number "1..2"`,
		"1 2":     "column 3: unexpected '2'",
		"1 ^ 2":   "column 3: unexpected '^'",
		"* 3":     "column 1: unexpected '*'",
		"3 - ()":  "column 6: unexpected ')'",
		"1 + 2)":  "column 6: unexpected ')'",
		"abc":     "column 1: unexpected 'a'",
		"4 / (-)": "column 7: unexpected ')'",
	} {
		if _, err := Parse(src); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %q", src, err, want)
		}
	}
}

// TestRunEqualsSeq folds random expressions in parallel and sequentially and
// checks both against the recursive reference.
func TestRunEqualsSeq(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, par := range []int{1, 2, 4} {
		pool.With(par, func(p *pool.Pool) {
			for i := range 60 {
				n := 1 + r.IntN(30)
				if i%10 == 0 {
					n = 1 + r.IntN(5_000)
				}
				e := Random(r, n)
				if got := fold.Seq(fold.Size[*Expr](), Operands, e); got != n {
					t.Fatalf("Random(%d) has %d nodes", n, got)
				}
				v, text := Eval(p, e)
				sv, stext := EvalSeq(e)
				rv, rtext := evalRec(e), printRec(e)
				if !Same(v, rv) || !Same(sv, rv) || text != rtext || stext != rtext {
					t.Fatalf("p=%d n=%d: Run = %v %q\nSeq = %v %q\nwant %v %q", par, n, v, text, sv, stext, rv, rtext)
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("p=%d n=%d: the random expression's value is %v", par, n, v)
				}
				// The text parses back to the same expression.
				if back, err := Parse(text); err != nil || printRec(back) != text {
					t.Fatalf("p=%d n=%d: the text does not parse back: %v", par, n, err)
				}
			}
		})
	}
}

// A left chain 1 - 1 - … - 1 is as deep as it is long: the folds keep their
// own stacks and do not recurse.
func TestDeepChain(t *testing.T) {
	const n = 30_000
	e, err := Parse("1" + strings.Repeat(" - 1", n-1))
	if err != nil {
		t.Fatal(err)
	}
	pool.With(2, func(p *pool.Pool) {
		if v := fold.Run(p, Value, Operands, e); v != 1-(n-1) {
			t.Errorf("value %v, want %v", v, 1-(n-1))
		}
		short := e
		for range n - 2000 {
			short = short.X
		}
		v, text := Eval(p, short)
		if v != 1-1999 || text != printRec(short) {
			t.Errorf("2000-deep chain: %v %q…", v, text[:40])
		}
	})
}

// durations matches the times the program prints.
var durations = regexp.MustCompile(`[0-9.]+(ns|µs|ms|s)\b`)

func runExpr(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, durations.ReplaceAllString(out.String(), "T"), errOut.String()
}

func TestRun(t *testing.T) {
	code, out, errOut := runExpr(t, "-p", "2", "1 - (2 - 3) * -4 / 8")
	if want := "(1 - (((2 - 3) * (-4)) / 8))\n= 0.5\n"; code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, %q", code, out, errOut, want)
	}
	code, out, _ = runExpr(t, "1", "-", "(2", "-", "3)") // the arguments are joined
	if want := "(1 - (2 - 3))\n= 2\n"; code != 0 || out != want {
		t.Errorf("exit %d, stdout %q; want 0, %q", code, out, want)
	}
	code, out, _ = runExpr(t, "-n", "12", "-seed", "3", "-print", "-runs", "1", "-p", "2")
	want := `random expression: 12 nodes, depth 5 (seed 3)
value: -12
text: ((((-2) + 1) - 2) - ((9 / 9) + 8))
fold.Run T (parallelism 2), fold.Seq T, best of 1
fold.Run and fold.Seq agree
`
	if code != 0 || out != want {
		t.Errorf("random: exit %d, stdout\n%s\nwant\n%s", code, out, want)
	}
	code, out, _ = runExpr(t, "-n", "5000", "-runs", "1")
	if lines := strings.Split(out, "\n"); code != 0 || len(lines) != 6 ||
		lines[0] != "random expression: 5000 nodes, depth 32 (seed 1)" || lines[1] != "value: -151.46946932476703" ||
		!strings.HasPrefix(lines[2], "text: 14998 bytes: (") || !strings.Contains(lines[2], " … ") ||
		lines[4] != "fold.Run and fold.Seq agree" {
		t.Errorf("random 5000: exit %d, stdout\n%s", code, out)
	}
}

func TestRunErrors(t *testing.T) {
	code, out, errOut := runExpr(t, "1 +")
	if want := "expr: \"1 +\": column 4: unexpected end of expression\n"; code != 2 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, \"\", %q", code, out, errOut, want)
	}
	for _, args := range [][]string{{"-n", "0"}, {"-p", "-1"}, {"-runs", "0"}, {"-bad"}} {
		if code, _, errOut := runExpr(t, args...); code != 2 || errOut == "" {
			t.Errorf("%q: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}
