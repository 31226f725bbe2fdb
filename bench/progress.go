package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress keeps one updating status line on stderr: what runs now and how
// much is left. On a terminal the line is rewritten in place (\r); anywhere
// else (a log, a test) one line per workload is written instead.
type progress struct {
	w           io.Writer
	tty         bool
	done, total int
	start       time.Time
	last        time.Time
	width       int
	lastLabel   string
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, start: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// plan adds n steps to the total, before the run starts. The total then
// stays fixed: steps that turn out not to be needed (a cell skipped, fewer
// rounds than planned) count as done (replan), so the count only moves up
// toward the total.
func (p *progress) plan(n int) { p.total += n }

// replan changes the steps still to come by delta: fewer (delta < 0) are
// counted as done; more (delta > 0, only ever rounds given back after an
// earlier replan took them) are taken off the done count again.
func (p *progress) replan(delta int) { p.done -= delta }

func (p *progress) step(n int) { p.done += n }

// show reports the current step: workload, strategy and phase.
func (p *progress) show(workload, strategy, phase string) {
	if p.w == nil {
		return
	}
	count := "" // none before the plan: the machine's measurements
	if p.total > 0 {
		count = fmt.Sprintf("[%d/%d] ", min(p.done, p.total), p.total)
	}
	line := fmt.Sprintf("%s%s · %s", count, workload, strategy)
	if phase != "" {
		line += " · " + phase
	}
	line += fmt.Sprintf("  (%s)", time.Since(p.start).Round(time.Second))
	if !p.tty {
		if workload != p.lastLabel {
			p.lastLabel = workload
			fmt.Fprintf(p.w, "%s%s\n", count, workload)
		}
		return
	}
	if time.Since(p.last) < 50*time.Millisecond && workload == p.lastLabel {
		return
	}
	p.last, p.lastLabel = time.Now(), workload
	pad := ""
	if n := p.width - len([]rune(line)); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	p.width = len([]rune(line))
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
}

// clear erases the status line (before the table is printed under it).
func (p *progress) clear() {
	if p.w == nil || !p.tty || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
	p.width = 0
}
