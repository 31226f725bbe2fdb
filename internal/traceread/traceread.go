// Package traceread reads what the project's tests check in an execution
// trace (runtime/trace): the user tasks and regions, and whether the
// regions of each goroutine nest. It reads the trace with
// golang.org/x/exp/trace, and is imported by tests only.
package traceread

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"golang.org/x/exp/trace"
)

// Task is a user task (runtime/trace.NewTask).
type Task struct {
	ID, Parent uint64
	Type       string
	Ended      bool
}

// Region is a user region (runtime/trace.StartRegion), at its beginning.
type Region struct {
	Goroutine int64
	Task      uint64 // the task it belongs to; 0 for none
	Type      string
}

// Trace is what Read found.
type Trace struct {
	Tasks   map[uint64]*Task // by ID
	Regions []Region
	// Misnested lists the regions that end out of order on their
	// goroutine, or never end.
	Misnested []string
}

// TasksOf returns the tasks of type typ.
func (t *Trace) TasksOf(typ string) []*Task {
	var out []*Task
	for _, k := range t.Tasks {
		if k.Type == typ {
			out = append(out, k)
		}
	}
	return out
}

// RegionsOf returns the regions of type typ.
func (t *Trace) RegionsOf(typ string) []Region {
	var out []Region
	for _, r := range t.Regions {
		if r.Type == typ {
			out = append(out, r)
		}
	}
	return out
}

// Read reads a trace that runtime/trace wrote.
func Read(data []byte) (*Trace, error) {
	r, err := trace.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	t := &Trace{Tasks: map[uint64]*Task{}}
	open := map[trace.GoID][]string{} // each goroutine's open regions, innermost last
	for {
		ev, err := r.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch ev.Kind() {
		case trace.EventTaskBegin:
			k := ev.Task()
			t.Tasks[uint64(k.ID)] = &Task{ID: uint64(k.ID), Parent: uint64(k.Parent), Type: k.Type}
		case trace.EventTaskEnd:
			if k, ok := t.Tasks[uint64(ev.Task().ID)]; ok {
				k.Ended = true
			}
		case trace.EventRegionBegin:
			g := ev.Goroutine()
			rg := ev.Region()
			t.Regions = append(t.Regions, Region{Goroutine: int64(g), Task: uint64(rg.Task), Type: rg.Type})
			open[g] = append(open[g], rg.Type)
		case trace.EventRegionEnd:
			g := ev.Goroutine()
			typ := ev.Region().Type
			s := open[g]
			if len(s) == 0 || s[len(s)-1] != typ {
				t.Misnested = append(t.Misnested, fmt.Sprintf("goroutine %d: region %q ends with %q open", g, typ, s))
				continue
			}
			open[g] = s[:len(s)-1]
		}
	}
	for g, s := range open {
		for _, typ := range s {
			t.Misnested = append(t.Misnested, fmt.Sprintf("goroutine %d: region %q never ends", g, typ))
		}
	}
	return t, nil
}
