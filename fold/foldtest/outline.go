package foldtest

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/forkjoin-go/forkjoin/tree"
)

// An outline numbers the nodes below a drawn root the way Trees and DAGs
// label theirs, in pre-order as the children function lists them (the
// root 0, then each child's subtree in turn, a node met again keeping the
// number it was first given), so that a failure over any node type names
// nodes by number and shows the tree as Node.String does. A root built by
// Build from a drawn Node gets the Node's labels back.
//
// Nodes are told apart by id: the node itself when N is comparable
// (Check), the user's key (CheckDAG); with no id (N not comparable), the
// nodes are not numbered and the checker compares counts only.
type outline[N any] struct {
	g    tree.Treeish[N]
	root N
	id   func(N) any
	num  map[any]int
	n    int // distinct nodes numbered
}

// newOutline numbers the nodes below root, when id is not nil.
func newOutline[N any](g tree.Treeish[N], root N, id func(N) any) *outline[N] {
	o := &outline[N]{g: g, root: root, id: id}
	if id == nil {
		return o
	}
	o.num = map[any]int{}
	stack := []N{root}
	var kids []N
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := id(n)
		if _, ok := o.num[k]; ok {
			continue
		}
		o.num[k] = o.n
		o.n++
		kids = o.children(n, kids[:0])
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, kids[i])
		}
	}
	return o
}

func (o *outline[N]) children(n N, into []N) []N {
	o.g.Each(n, func(c N) bool {
		into = append(into, c)
		return true
	})
	return into
}

// unlisted is the key of a node the numbering walk did not meet (the
// children function listed other nodes later).
type unlisted struct{}

func (unlisted) String() string { return "?" }

// key is the checker's key of n: its number, nil with no id.
func (o *outline[N]) key(n N) any {
	if o.id == nil {
		return nil
	}
	if i, ok := o.num[o.id(n)]; ok {
		return i
	}
	return unlisted{}
}

// String writes the tree as Node.String does, numbers for labels:
// "0(1 2(3))", a node met again as its number and "^". It lists the
// children again, so a children function that changes its answer is
// shown as it answers now.
func (o *outline[N]) String() string {
	var b strings.Builder
	seen := map[any]bool{}
	count := 0
	var write func(N)
	write = func(m N) {
		if count++; count > maxShown {
			if count == maxShown+1 {
				b.WriteString("…")
			}
			return
		}
		if o.id == nil {
			b.WriteString("*")
		} else {
			b.WriteString(fmt.Sprint(o.key(m)))
			if k := o.id(m); seen[k] {
				b.WriteString("^")
				return
			} else {
				seen[k] = true
			}
		}
		kids := o.children(m, nil)
		if len(kids) == 0 {
			return
		}
		b.WriteByte('(')
		for i, c := range kids {
			if i > 0 {
				b.WriteByte(' ')
			}
			write(c)
		}
		b.WriteByte(')')
	}
	write(o.root)
	return b.String()
}

// maxDescribed bounds the nodes whose contents a failure lists.
const maxDescribed = 24

// describe is what a failing check logs about a drawn root of a node type
// other than *Node (rapid prints those with Node.GoString): the tree in
// numbers, then what each node holds besides its children.
type describe[N any] struct{ o *outline[N] }

func (d describe[N]) String() string {
	o := d.o
	var b strings.Builder
	if o.id == nil {
		b.WriteString("the root drawn, as the children function lists it (* a node; " +
			"the node type is not comparable, so nodes are not numbered): ")
		b.WriteString(o.String())
		return b.String()
	}
	fmt.Fprintf(&b, "the root drawn, as a tree of %s numbered in pre-order as the children function lists them "+
		"(for a root made by Build, the labels of the drawn foldtest.Node): %s", nodesText(o.n), o.String())
	lines, shown := contents(o)
	if shown {
		b.WriteString("\nwhat the nodes hold besides their children:")
		b.WriteString(lines)
	}
	return b.String()
}

// contents lists, in number order, what each of the first nodes holds
// besides its children, and reports whether any holds anything.
func contents[N any](o *outline[N]) (string, bool) {
	byNum := make([]N, min(o.n, maxDescribed))
	have := make([]bool, len(byNum))
	stack := []N{o.root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := o.key(n).(int)
		if !ok || i >= len(byNum) || have[i] {
			continue
		}
		byNum[i], have[i] = n, true
		stack = append(stack, o.children(n, nil)...)
	}
	var b strings.Builder
	held := false
	for i, n := range byNum {
		if !have[i] {
			continue
		}
		s := nodeContents(n)
		held = held || s != "{}"
		b.WriteString("\n\t" + strconv.Itoa(i) + ": " + s)
	}
	if o.n > len(byNum) {
		fmt.Fprintf(&b, "\n\t… and %d more", o.n-len(byNum))
	}
	return b.String(), held
}

// nodeContents shows n without its children: its String when it has one,
// else, for a struct or a pointer to one, its fields but those holding
// nodes of its own type (the children); other values with %v.
func nodeContents[N any](n N) string {
	if s, ok := any(n).(fmt.Stringer); ok {
		return clip(s.String())
	}
	nodeType := reflect.TypeFor[N]()
	v := reflect.ValueOf(&n).Elem()
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "nil"
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return clip(fmt.Sprintf("%v", v))
	}
	var b strings.Builder
	b.WriteByte('{')
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if holdsNodes(f.Type, nodeType) {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(' ')
		}
		b.WriteString(f.Name + ":" + clip(fmt.Sprintf("%v", v.Field(i))))
	}
	b.WriteByte('}')
	return b.String()
}

// holdsNodes reports whether a field of type t holds nodes of type node:
// a node, or a slice, array, map or channel of them.
func holdsNodes(t, node reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.Chan:
		return t.Elem() == node
	}
	return t == node
}

// maxContent bounds the text shown for one node or field.
const maxContent = 60

func clip(s string) string {
	if len(s) > maxContent {
		return s[:maxContent] + "…"
	}
	return s
}

// unstable lists the children of every node several times and describes
// the first node whose lists differ (by id, or by count with no id), or
// returns "". A children function that shuffles is caught on the first
// node with two children but once in 2^(listings-1).
func (o *outline[N]) unstable() string {
	seen := map[any]bool{}
	stack := []N{o.root}
	visits := 0
	for len(stack) > 0 && visits < maxUnstableVisits {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		visits++
		if o.id != nil {
			if k := o.id(n); seen[k] {
				continue
			} else {
				seen[k] = true
			}
		}
		first := o.children(n, nil)
		for range listings - 1 {
			again := o.children(n, nil)
			if o.sameKids(first, again) {
				continue
			}
			was, now := o.keys(first), o.keys(again)
			note := ""
			if strings.Contains(was+now, "?") {
				note = " (?: a node not in the tree as first listed: new nodes each time?)"
			}
			return fmt.Sprintf("the children function is not deterministic: node %v's children were listed as %s, then as %s%s; "+
				"the checkers list a node's children more than once (once to know the order Accumulate must follow), "+
				"so the children function must give the same children in the same order every time",
				o.key(n), was, now, note)
		}
		stack = append(stack, first...)
	}
	return ""
}

// listings is how many times unstable lists a node's children.
const listings = 16

// maxUnstableVisits bounds the nodes unstable lists when nodes have no id
// (a DAG taken as a tree expands).
const maxUnstableVisits = 1 << 16

func (o *outline[N]) sameKids(a, b []N) bool {
	if len(a) != len(b) {
		return false
	}
	if o.id == nil {
		return true
	}
	for i := range a {
		if o.id(a[i]) != o.id(b[i]) {
			return false
		}
	}
	return true
}

// keys writes a list of children by number: [4 5 6]; with no id, their count.
func (o *outline[N]) keys(kids []N) string {
	if o.id == nil {
		return fmt.Sprintf("%d children", len(kids))
	}
	parts := make([]string, len(kids))
	for i, c := range kids {
		parts[i] = fmt.Sprint(o.key(c))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func nodesText(n int) string {
	if n == 1 {
		return "1 node"
	}
	return strconv.Itoa(n) + " nodes"
}
