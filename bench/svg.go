package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"strings"
)

// The -svg chart: for every workload, one horizontal bar per strategy showing
// its median time relative to sequential on a log scale shared by all
// workloads. Bars grow from the 1× line: to the left when faster than
// sequential, to the right when slower. The ratio and the median are printed
// at the right; strategies that deadlocked, were skipped or were wrong get a
// word instead of a bar. Colours are by family (legend at the top).

var familyColours = map[string]string{
	"baseline":   "#555555",
	"forkjoin":   "#d62728",
	"goroutines": "#2ca02c",
	"errgroup":   "#ff7f0e",
	"conc":       "#9467bd",
	"ants":       "#8c564b",
	"pond":       "#e377c2",
	"queue":      "#17becf",
}

func colourOf(family string) string {
	if c, ok := familyColours[family]; ok {
		return c
	}
	return "#7f7f7f"
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

const (
	svgWidth   = 980
	svgLabelX  = 178 // right edge of the strategy names
	svgPlotX0  = 190
	svgPlotX1  = 700
	svgValueX  = 712
	svgRowH    = 17
	svgHeadH   = 24
	svgPanelGa = 10
)

func renderSVG(rep *Report) []byte {
	// The shared log scale.
	lo, hi := 1.0, 1.0
	for _, wr := range rep.Results {
		for _, c := range wr.Cells {
			if c.Status == statusOK && c.RatioSeq > 0 {
				lo, hi = math.Min(lo, c.RatioSeq), math.Max(hi, c.RatioSeq)
			}
		}
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo)+1e-9))
	hi = math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
	if lo > 0.1 {
		lo = 0.1
	}
	if hi < 10 {
		hi = 10
	}
	lx0, lx1 := math.Log10(lo), math.Log10(hi)
	xOf := func(r float64) float64 {
		return svgPlotX0 + (math.Log10(r)-lx0)/(lx1-lx0)*(svgPlotX1-svgPlotX0)
	}

	// Which families appear (legend).
	var fams []string
	seen := map[string]bool{}
	for _, f := range families {
		for _, wr := range rep.Results {
			for _, c := range wr.Cells {
				if c.Strategy.Family == f && c.Status != statusAbsent && !seen[f] {
					seen[f] = true
					fams = append(fams, f)
				}
			}
		}
	}

	var body bytes.Buffer
	y := 0.0
	top := 118.0
	y = top
	for _, wr := range rep.Results {
		w := wr.Workload
		title := w.Label
		if wr.Units > 0 && w.UnitName != "" {
			title += fmt.Sprintf(" — %s %ss", fmtCount(wr.Units), w.UnitName)
		}
		fmt.Fprintf(&body, `<text x="12" y="%.0f" class="wl">%s</text>`+"\n", y+16, esc(title))
		y += svgHeadH
		if wr.Skipped != "" {
			fmt.Fprintf(&body, `<text x="%d" y="%.0f" class="skip">%s</text>`+"\n", svgPlotX0, y+12, esc(wr.Skipped))
			y += svgRowH + svgPanelGa
			continue
		}
		panelTop := y
		for i, c := range wr.Cells {
			if c.Status == statusAbsent {
				continue
			}
			if i%2 == 0 {
				fmt.Fprintf(&body, `<rect x="8" y="%.0f" width="%d" height="%d" class="band"/>`+"\n", y, svgWidth-16, svgRowH)
			}
			cy := y + svgRowH/2
			weight := ""
			if c.Strategy.isForkjoin() {
				weight = ` font-weight="bold"`
			}
			fmt.Fprintf(&body, `<text x="%d" y="%.1f" class="name"%s>%s</text>`+"\n", svgLabelX, cy+4, weight, esc(c.Strategy.Name))
			switch {
			case c.Status == statusOK && c.RatioSeq <= 0:
				// No sequential run to compare with (the blocking
				// workload): the time alone.
				fmt.Fprintf(&body, `<text x="%.1f" y="%.1f" class="val">%s</text>`+"\n", xOf(1)+6, cy+4,
					esc(fmtDur(c.Median)+" a run (no sequential run to compare with)"))
			case c.Status == statusOK:
				x1 := xOf(max(c.RatioSeq, lo))
				x0 := xOf(1)
				left, width := math.Min(x0, x1), math.Abs(x1-x0)
				if width < 2 {
					left, width = x1-1, 2
				}
				fmt.Fprintf(&body, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
					left, y+3, width, svgRowH-6, colourOf(c.Strategy.Family),
					esc(fmt.Sprintf("%s: %s per run, %s sequential", c.Strategy.Name, fmtDur(c.Median), fmtRatio(c.RatioSeq))))
				label := fmt.Sprintf("%s  %s", fmtRatio(c.RatioSeq), fmtDur(c.Median))
				if c.RatioSeq < 1 {
					label += fmt.Sprintf("  (%s faster)", trim3(1/c.RatioSeq)+"×")
				}
				fmt.Fprintf(&body, `<text x="%d" y="%.1f" class="val">%s</text>`+"\n", svgValueX, cy+4, esc(label))
			default:
				cls, word := "skip", c.Status
				switch c.Status {
				case statusDeadlock, statusHung:
					cls = "dead"
				case statusWrong:
					cls, word = "dead", "WRONG"
				}
				note := c.Short
				if note == "" {
					note = word
				}
				fmt.Fprintf(&body, `<text x="%.1f" y="%.1f" class="%s">%s</text>`+"\n", xOf(1)+6, cy+4, cls, esc(note))
			}
			y += svgRowH
		}
		// The 1× line of this panel.
		fmt.Fprintf(&body, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="one"/>`+"\n", xOf(1), panelTop, xOf(1), y)
		y += svgPanelGa
	}
	bottom := y

	var out bytes.Buffer
	height := bottom + 40
	fmt.Fprintf(&out, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="Helvetica, Arial, sans-serif">`+"\n",
		svgWidth, height, svgWidth, height)
	out.WriteString(`<style>
.title{font-size:17px;font-weight:bold;fill:#222}
.sub{font-size:12px;fill:#444}
.wl{font-size:13px;font-weight:bold;fill:#222}
.name{font-size:11.5px;text-anchor:end;fill:#222}
.val{font-size:11px;fill:#333}
.tick{font-size:10.5px;text-anchor:middle;fill:#555}
.skip{font-size:11px;fill:#777;font-style:italic}
.dead{font-size:11px;fill:#b00000;font-weight:bold}
.grid{stroke:#ddd;stroke-width:1}
.one{stroke:#222;stroke-width:1.5}
.band{fill:#f6f6f6}
.leg{font-size:11.5px;fill:#222}
</style>
<rect width="100%" height="100%" fill="white"/>
`)
	m := rep.Machine
	fmt.Fprintf(&out, `<text x="12" y="24" class="title">%s</text>`+"\n",
		esc(fmt.Sprintf("forkjoin bench (%s mode): median time per run relative to sequential", rep.Config.Mode)))
	fmt.Fprintf(&out, `<text x="12" y="42" class="sub">%s</text>`+"\n",
		esc(fmt.Sprintf("%s · P=%d · GOMAXPROCS %d · %s %s/%s · 2-core ceiling %.2f× · %d rounds, A B A B interleaved",
			m.CPU, m.P, m.GOMAXPROCS, m.GoVersion, m.OS, m.Arch, m.Ceiling, rep.Config.Rounds)))
	fmt.Fprintf(&out, `<text x="12" y="58" class="sub">%s</text>`+"\n",
		esc("log scale; bars left of the black 1× line are faster than sequential, right of it slower; shorter is better"))
	// Legend.
	lx := 12.0
	for _, f := range fams {
		fmt.Fprintf(&out, `<rect x="%.0f" y="68" width="12" height="12" fill="%s"/><text x="%.0f" y="78.5" class="leg">%s</text>`+"\n",
			lx, colourOf(f), lx+16, esc(f))
		lx += 22 + 7.2*float64(len(f))
	}
	// Grid and ticks, top and bottom.
	for d := lx0; d <= lx1+1e-9; d++ {
		for _, mul := range []float64{1, 3} {
			r := math.Pow(10, d) * mul
			if r > hi*1.0001 {
				continue
			}
			x := xOf(r)
			fmt.Fprintf(&out, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" class="grid"/>`+"\n", x, top-6, x, bottom)
			label := trim3(r) + "×"
			if r >= 1000 {
				label = fmt.Sprintf("%.0fk×", r/1000)
			} else if r < 1 {
				label = strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", r), "0"), ".") + "×"
			} else {
				label = fmt.Sprintf("%.0f×", r)
			}
			fmt.Fprintf(&out, `<text x="%.1f" y="%.0f" class="tick">%s</text>`+"\n", x, top-10, label)
			fmt.Fprintf(&out, `<text x="%.1f" y="%.0f" class="tick">%s</text>`+"\n", x, bottom+14, label)
		}
	}
	out.Write(body.Bytes())
	fmt.Fprintf(&out, `<text x="12" y="%.0f" class="sub">%s</text>`+"\n", bottom+32,
		esc("deadlock: no result within the timeout on a small probe (bounded pools blocking on nested forks); skipped: estimated over the time budget"))
	out.WriteString("</svg>\n")
	return out.Bytes()
}

func writeSVG(path string, rep *Report) error {
	return os.WriteFile(path, renderSVG(rep), 0o644)
}
