package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/klauspost/cpuid/v2"
)

// Machine describes where the numbers were taken.
type Machine struct {
	CPU            string  `json:"cpu"`
	PhysicalCores  int     `json:"physical_cores"`
	ThreadsPerCore int     `json:"threads_per_core"`
	LogicalCores   int     `json:"logical_cores"`
	CacheLine      int     `json:"cache_line"`
	NumCPU         int     `json:"num_cpu"`
	GOMAXPROCS     int     `json:"gomaxprocs"`
	GoVersion      string  `json:"go_version"`
	OS             string  `json:"os"`
	Arch           string  `json:"arch"`
	Hostname       string  `json:"hostname,omitempty"`
	NsPerIter      float64 `json:"ns_per_lcg_iteration"`

	// Ceiling is the machine's 2-core ceiling: the throughput of two copies
	// of a CPU-bound loop side by side in goroutines over one copy alone
	// (2.0 on two idle cores, less on a busy or shared machine), median of
	// CeilingRuns alternating measurements. CeilingP is the same with P
	// copies when P is not 2.
	Ceiling     float64   `json:"ceiling_2"`
	CeilingRuns []float64 `json:"ceiling_2_runs"`
	CeilingP    float64   `json:"ceiling_p,omitempty"`
	P           int       `json:"p"`
	// CeilingEnd is the 2-core ceiling measured again after the last
	// workload: far from Ceiling, the machine's load changed during the run.
	CeilingEnd float64 `json:"ceiling_2_end,omitempty"`
}

var spinSink uint64

func probeMachine(p int) Machine {
	host, _ := os.Hostname()
	return Machine{
		CPU:            cpuid.CPU.BrandName,
		PhysicalCores:  cpuid.CPU.PhysicalCores,
		ThreadsPerCore: cpuid.CPU.ThreadsPerCore,
		LogicalCores:   cpuid.CPU.LogicalCores,
		CacheLine:      cpuid.CPU.CacheLine,
		NumCPU:         runtime.NumCPU(),
		GOMAXPROCS:     runtime.GOMAXPROCS(0),
		GoVersion:      runtime.Version(),
		OS:             runtime.GOOS,
		Arch:           runtime.GOARCH,
		Hostname:       host,
		P:              p,
	}
}

// nsPerIteration times the LCG step of spin (best of a few tries).
func nsPerIteration() float64 {
	const k = 1 << 20
	best := time.Duration(1 << 62)
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		spinSink += spin(uint64(i), k)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return float64(best.Nanoseconds()) / k
}

// copiesTime runs n copies of a k-iteration loop in n goroutines and returns
// how long until all are done.
func copiesTime(n, k int) time.Duration {
	var wg sync.WaitGroup
	out := make([]uint64, n)
	wg.Add(n)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
			out[i] = spin(uint64(i), k)
		}()
	}
	wg.Wait()
	d := time.Since(t0)
	for _, v := range out {
		spinSink += v
	}
	return d
}

// measureCeiling fills in the time per LCG iteration and the 2-core (and
// P-core) ceiling: one copy alone, then n copies side by side, alternating,
// three times.
func (m *Machine) measureCeiling(loop time.Duration) {
	m.NsPerIter = nsPerIteration()
	k := max(1, int(float64(loop.Nanoseconds())/m.NsPerIter))
	ratio := func(n int) []float64 {
		var rs []float64
		for i := 0; i < 3; i++ {
			alone := copiesTime(1, k)
			side := copiesTime(n, k)
			rs = append(rs, float64(n)*float64(alone)/float64(side))
		}
		sort.Float64s(rs)
		return rs
	}
	m.CeilingRuns = ratio(2)
	m.Ceiling = m.CeilingRuns[len(m.CeilingRuns)/2]
	if m.P != 2 && m.P > 0 {
		rs := ratio(m.P)
		m.CeilingP = rs[len(rs)/2]
	}
}

// ceilingAgain measures the 2-core ceiling once more (after the workloads).
func (m *Machine) ceilingAgain(loop time.Duration) {
	k := max(1, int(float64(loop.Nanoseconds())/m.NsPerIter))
	var rs []float64
	for i := 0; i < 3; i++ {
		alone := copiesTime(1, k)
		side := copiesTime(2, k)
		rs = append(rs, 2*float64(alone)/float64(side))
	}
	sort.Float64s(rs)
	m.CeilingEnd = rs[1]
}

func (m *Machine) print(w io.Writer, cfg *Config) {
	fmt.Fprintf(w, "forkjoin bench — mode %s, %d rounds, P=%d\n", cfg.Mode, cfg.Rounds, m.P)
	fmt.Fprintf(w, "machine: %s; %d physical cores, %d threads/core, %d logical, cache line %d B\n",
		m.CPU, m.PhysicalCores, m.ThreadsPerCore, m.LogicalCores, m.CacheLine)
	fmt.Fprintf(w, "runtime: %s %s/%s, NumCPU %d, GOMAXPROCS %d\n",
		m.GoVersion, m.OS, m.Arch, m.NumCPU, m.GOMAXPROCS)
	fmt.Fprintf(w, "2-core ceiling: %.2f× (two CPU-bound loops side by side vs one alone; runs %s; 2.00 = two free cores)",
		m.Ceiling, fmtFloats(m.CeilingRuns))
	if m.CeilingP > 0 {
		fmt.Fprintf(w, "; %d-core ceiling %.2f×", m.P, m.CeilingP)
	}
	fmt.Fprintf(w, "\nLCG iteration: %.2f ns\n\n", m.NsPerIter)
}

func fmtFloats(fs []float64) string {
	s := ""
	for i, f := range fs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.2f", f)
	}
	return s
}
