package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// The table: one block per workload, one row per strategy.
//
//	median     the median time of one run over the timed rounds
//	per unit   median / the workload's units (nodes, calls, elements, tasks)
//	×seq       median / sequential's median (below 1: faster than sequential)
//	×best      median / the fastest non-forkjoin strategy's median (sequential included)
//	allocs     heap allocations per run (runtime.MemStats.Mallocs), median
//	note       deadlock / skipped / WRONG / cut-off chosen / rounds run

const rowFormat = "  %-19s %10s %15s %9s %9s %10s  %s\n"

// noteFormat is a row of strategies that have no time on a workload: a
// deadlock, a run skipped as too slow, a wrong result.
const noteFormat = "  %-19s %s\n"

// notRunAgain starts the note of a strategy not run on a workload because
// it deadlocked on one with the same nesting before.
const notRunAgain = "deadlock: not run again"

func printTableHeader(w io.Writer) {
	fmt.Fprintf(w, rowFormat, "strategy", "median", "per unit", "×seq", "×best", "allocs/run", "note")
	fmt.Fprintf(w, rowFormat, strings.Repeat("─", 19), strings.Repeat("─", 10), strings.Repeat("─", 15),
		strings.Repeat("─", 9), strings.Repeat("─", 9), strings.Repeat("─", 10), strings.Repeat("─", 20))
}

func printWorkload(w io.Writer, wr *WorkloadResult, rounds int) {
	wl := wr.Workload
	head := wl.Label
	if wl.UnitName != "" && wr.Units > 0 && !strings.Contains(head, fmtCount(wr.Units)+" ") {
		head += fmt.Sprintf(" (%s %ss)", fmtCount(wr.Units), wl.UnitName)
	}
	switch wl.Nesting {
	case NestFlat:
	case NestBlock:
		head += " [tasks block on each other]"
	default:
		head += " [nested: " + wl.Nesting + "]"
	}
	head += fmt.Sprintf("  · %s", wr.Elapsed.Round(100*time.Millisecond))
	fmt.Fprintln(w, head)
	if wr.Skipped != "" {
		fmt.Fprintf(w, "  %s\n\n", wr.Skipped)
		return
	}
	var notRun []string // strategies not run again after a deadlock
	notRunWhy := ""
	for _, c := range wr.Cells {
		name := c.Strategy.Name
		switch {
		case c.Status == statusAbsent:
			continue // the strategy does not do this kind of work
		case c.Status == statusDeadlock && strings.HasPrefix(c.Note, notRunAgain):
			notRun = append(notRun, name)
			notRunWhy = strings.TrimPrefix(c.Note, notRunAgain)
			continue
		case c.Status != statusOK:
			fmt.Fprintf(w, noteFormat, name, c.Note)
			continue
		}
		per := "–"
		if wl.UnitName != "" && wr.Units > 0 {
			per = fmtDur(c.Median/wr.Units) + "/" + wl.UnitName
		}
		note := c.Note
		if c.Rounds > 0 && c.Rounds < rounds {
			note = joinNote(note, fmt.Sprintf("%d of %d rounds: runs too long for the time budget", len(c.Samples), rounds))
		}
		fmt.Fprintf(w, rowFormat, name, fmtDur(c.Median), per, fmtRatio(c.RatioSeq), fmtRatio(c.RatioBest),
			fmtCount(c.Allocs), note)
	}
	if len(notRun) > 0 {
		fmt.Fprintf(w, "  %s: not run%s\n", strings.Join(notRun, ", "), notRunWhy)
	}
	fmt.Fprintln(w)
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// fmtDur formats nanoseconds with a unit and three significant digits.
func fmtDur(ns float64) string {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return trim3(ns/1e9) + "s"
	case a >= 1e6:
		return trim3(ns/1e6) + "ms"
	case a >= 1e3:
		return trim3(ns/1e3) + "µs"
	}
	return trim3(ns) + "ns"
}

func trim3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtRatio(r float64) string {
	if r <= 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return "–"
	}
	return trim3(r) + "×"
}

// fmtCount writes 0, 12, 3.4k, 1.05M.
func fmtCount(v float64) string {
	switch {
	case v >= 1e9:
		return trim3(v/1e9) + "G"
	case v >= 1e6:
		return trim3(v/1e6) + "M"
	case v >= 1e4:
		return trim3(v/1e3) + "k"
	case v == math.Trunc(v):
		return fmt.Sprintf("%.0f", v)
	}
	return trim3(v)
}
