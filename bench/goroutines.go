package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"runtime/pprof"
	"strconv"
	"strings"
)

// Every goroutine a strategy starts for a workload carries a profiler label
// naming the cell (goroutines inherit the labels of the goroutine that
// starts them): the runner, the pool's workers and every fork. So the
// goroutines a deadlocked strategy leaves behind can be counted exactly, and
// a test can tell them from a leak.

const cellLabel = "bench-cell"

// withCellLabel runs f with the cell's label set on the calling goroutine, so
// that goroutines started by f carry it.
func withCellLabel(key string, f func()) {
	pprof.Do(context.Background(), pprof.Labels(cellLabel, key), func(context.Context) { f() })
}

// cellGoroutines counts the live goroutines by cell label ("" for those
// without one).
func cellGoroutines() map[string]int {
	var buf bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&buf, 1)
	counts := map[string]int{}
	sc := bufio.NewScanner(&buf)
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	cur, pending := 0, false
	flush := func(label string) {
		if pending {
			counts[label] += cur
			pending = false
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if n, rest, ok := strings.Cut(line, " @ "); ok && rest != "" {
			if v, err := strconv.Atoi(n); err == nil {
				flush("")
				cur, pending = v, true
				continue
			}
		}
		if js, ok := strings.CutPrefix(line, "# labels: "); ok && pending {
			var m map[string]string
			_ = json.Unmarshal([]byte(js), &m)
			flush(m[cellLabel])
		}
	}
	flush("")
	return counts
}
