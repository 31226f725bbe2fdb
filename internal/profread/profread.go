// Package profread reads the samples of a pprof profile (the
// profile.proto format that runtime/pprof writes, gzipped or not): each
// sample's values, the functions on its stack and its string labels. The
// project's tests use it to check which labels the pool's goroutines carry
// in CPU and goroutine profiles, with the standard library alone.
//
// It decodes the few messages it needs (Sample, Label, Location, Line,
// Function and the string table) from the protocol-buffer wire format and
// skips every other field.
package profread

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Sample is one sample of a profile.
type Sample struct {
	// Values are the sample's values, one per sample type of the profile
	// (for a CPU profile: samples and nanoseconds).
	Values []int64
	// Funcs are the names of the functions on the sample's stack, the
	// innermost first, inlined calls included.
	Funcs []string
	// Labels are the sample's string labels (pprof.Labels).
	Labels map[string]string
}

// Has reports whether fn is one of the functions on the sample's stack.
func (s Sample) Has(fn string) bool { return slices.Contains(s.Funcs, fn) }

// Parse decodes a profile, gzipped (as runtime/pprof writes it) or not.
func Parse(data []byte) ([]Sample, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	var (
		p       profile
		samples [][]byte
	)
	err := eachField(data, func(num int, wire int, v uint64, b []byte) error {
		switch {
		case num == 2 && wire == wireBytes:
			samples = append(samples, b)
		case num == 4 && wire == wireBytes:
			return p.location(b)
		case num == 5 && wire == wireBytes:
			return p.function(b)
		case num == 6 && wire == wireBytes:
			p.strings = append(p.strings, string(b))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]Sample, 0, len(samples))
	for _, b := range samples {
		s, err := p.sample(b)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// profile is what Parse keeps of the messages that samples refer to.
type profile struct {
	strings   []string
	locations map[uint64][]uint64 // location id: function ids, innermost first
	functions map[uint64]int64    // function id: name's index in strings
}

func (p *profile) str(i int64) (string, error) {
	if i < 0 || i >= int64(len(p.strings)) {
		return "", fmt.Errorf("profread: string index %d out of range", i)
	}
	return p.strings[i], nil
}

// location decodes a Location: its id and its lines' function ids.
func (p *profile) location(b []byte) error {
	var id uint64
	var funcs []uint64
	err := eachField(b, func(num, wire int, v uint64, line []byte) error {
		switch {
		case num == 1 && wire == wireVarint:
			id = v
		case num == 4 && wire == wireBytes:
			return eachField(line, func(num, wire int, v uint64, _ []byte) error {
				if num == 1 && wire == wireVarint {
					funcs = append(funcs, v)
				}
				return nil
			})
		}
		return nil
	})
	if p.locations == nil {
		p.locations = map[uint64][]uint64{}
	}
	p.locations[id] = funcs
	return err
}

// function decodes a Function: its id and its name's string index.
func (p *profile) function(b []byte) error {
	var id uint64
	var name int64
	err := eachField(b, func(num, wire int, v uint64, _ []byte) error {
		switch {
		case num == 1 && wire == wireVarint:
			id = v
		case num == 2 && wire == wireVarint:
			name = int64(v)
		}
		return nil
	})
	if p.functions == nil {
		p.functions = map[uint64]int64{}
	}
	p.functions[id] = name
	return err
}

// sample decodes a Sample, once every location, function and string is
// known.
func (p *profile) sample(b []byte) (Sample, error) {
	var s Sample
	var locs []uint64
	err := eachField(b, func(num, wire int, v uint64, sub []byte) error {
		switch num {
		case 1: // location_id, packed or not
			return varints(wire, v, sub, func(x uint64) { locs = append(locs, x) })
		case 2: // value, packed or not
			return varints(wire, v, sub, func(x uint64) { s.Values = append(s.Values, int64(x)) })
		case 3:
			if wire != wireBytes {
				return errors.New("profread: a label is not a message")
			}
			return p.label(sub, &s)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	for _, l := range locs {
		for _, f := range p.locations[l] {
			name, err := p.str(p.functions[f])
			if err != nil {
				return s, err
			}
			s.Funcs = append(s.Funcs, name)
		}
	}
	return s, nil
}

// label decodes a Label into s.Labels if it is a string label.
func (p *profile) label(b []byte, s *Sample) error {
	var key, str int64
	err := eachField(b, func(num, wire int, v uint64, _ []byte) error {
		switch {
		case num == 1 && wire == wireVarint:
			key = int64(v)
		case num == 2 && wire == wireVarint:
			str = int64(v)
		}
		return nil
	})
	if err != nil || str == 0 { // 0: the empty string, a numeric label
		return err
	}
	k, err := p.str(key)
	if err != nil {
		return err
	}
	v, err := p.str(str)
	if err != nil {
		return err
	}
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[k] = v
	return nil
}

// The wire types this package reads; fixed-size fields are skipped.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// eachField calls f for each field of the message b: its number and wire
// type, and its value (a varint's in v, a length-delimited field's in
// sub).
func eachField(b []byte, f func(num, wire int, v uint64, sub []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errors.New("profread: bad field key")
		}
		b = b[n:]
		num, wire := int(key>>3), int(key&7)
		var v uint64
		var sub []byte
		switch wire {
		case wireVarint:
			if v, n = binary.Uvarint(b); n <= 0 {
				return errors.New("profread: bad varint")
			}
			b = b[n:]
		case wireBytes:
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return errors.New("profread: bad length")
			}
			sub, b = b[n:n+int(l)], b[n+int(l):]
		case wireFixed64, wireFixed32:
			size := 8
			if wire == wireFixed32 {
				size = 4
			}
			if len(b) < size {
				return errors.New("profread: truncated fixed-size field")
			}
			b = b[size:]
		default:
			return fmt.Errorf("profread: wire type %d", wire)
		}
		if err := f(num, wire, v, sub); err != nil {
			return err
		}
	}
	return nil
}

// varints calls f with a repeated varint field's values: one (v) if it
// was written alone, or each of the packed ones in sub.
func varints(wire int, v uint64, sub []byte, f func(uint64)) error {
	if wire == wireVarint {
		f(v)
		return nil
	}
	if wire != wireBytes {
		return errors.New("profread: a repeated number is neither a varint nor packed")
	}
	for len(sub) > 0 {
		x, n := binary.Uvarint(sub)
		if n <= 0 {
			return errors.New("profread: bad packed varint")
		}
		f(x)
		sub = sub[n:]
	}
	return nil
}
