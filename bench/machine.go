package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
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

	// WakeUs are the quantiles (10%, 50%, 90%) in microseconds of the time
	// a parked goroutine takes to start running after a busy goroutine
	// wakes it, when the process was idle just before (see wakeLatency).
	// Every pool pays it at the start of a run that follows a pause; a
	// strategy's samples of a single run each include it.
	WakeUs []float64 `json:"wake_us,omitempty"`
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

// wakeLatency measures how long a parked goroutine takes to run after a
// busy goroutine wakes it, when the whole process was idle for a moment
// before: tries times, sleep 2 ms, wake it through a channel, spin until
// it reports (giving up after 20 ms). This is the operating system's and
// the Go scheduler's cost, not any strategy's: on a virtual machine it can
// be a millisecond or more, when the woken thread is queued behind the
// busy one instead of on the idle processor (docs/BENCHMARKS.md, "Cold
// runs"). It returns the 10%, 50% and 90% quantiles in microseconds.
func wakeLatency(tries int) []float64 {
	wake := make(chan struct{})
	var started atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range wake {
			started.Store(time.Now().UnixNano())
		}
	}()
	us := make([]float64, 0, tries)
	for range tries {
		time.Sleep(2 * time.Millisecond)
		started.Store(0)
		t0 := time.Now()
		wake <- struct{}{}
		x := uint64(t0.UnixNano())
		for started.Load() == 0 && time.Since(t0) < 20*time.Millisecond {
			x = spin(x, 100) // busy: this goroutine never yields
		}
		spinSink += x
		d := 20 * time.Millisecond
		if s := started.Load(); s != 0 {
			d = time.Duration(s - t0.UnixNano())
		}
		us = append(us, float64(d.Nanoseconds())/1e3)
	}
	close(wake)
	<-done
	sort.Float64s(us)
	q := func(f float64) float64 { return us[int(f*float64(len(us)-1))] }
	return []float64{q(0.1), q(0.5), q(0.9)}
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
	fmt.Fprintf(w, "\nLCG iteration: %.2f ns\n", m.NsPerIter)
	if len(m.WakeUs) == 3 {
		fmt.Fprintf(w, "wake-up after a pause: %.0f µs median (10%%: %.0f, 90%%: %.0f; a parked goroutine woken by a busy one; every pool pays it when a run follows a pause)\n",
			m.WakeUs[1], m.WakeUs[0], m.WakeUs[2])
	}
	fmt.Fprintln(w)
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
