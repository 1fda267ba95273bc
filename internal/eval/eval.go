// Package eval evaluates checked expressions (package expr) against items:
// conditions and filters, document paths, and projections. It is pure:
// no storage, no I/O, no errors at evaluation time — a condition that
// cannot be true (a missing attribute, mismatched types) is simply false,
// as in DynamoDB.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html
package eval

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/expr"
)

// Resolve returns the value at path in item and whether it exists. A nil
// item has no attributes.
func Resolve(item attr.Item, p *expr.Path) (attr.Value, bool) {
	if len(p.Elems) == 0 || p.Elems[0].IsIndex {
		return attr.Value{}, false
	}
	v, ok := item[p.Elems[0].Name]
	if !ok {
		return attr.Value{}, false
	}
	for _, el := range p.Elems[1:] {
		if el.IsIndex {
			if v.Kind() != attr.L || el.Index >= len(v.ListValue()) {
				return attr.Value{}, false
			}
			v = v.ListValue()[el.Index]
			continue
		}
		if v.Kind() != attr.M {
			return attr.Value{}, false
		}
		v, ok = v.MapValue()[el.Name]
		if !ok {
			return attr.Value{}, false
		}
	}
	return v, true
}

// Condition reports whether the condition e holds for item (nil for an
// item that does not exist).
func Condition(e expr.Expr, item attr.Item) bool {
	switch x := e.(type) {
	case *expr.Paren:
		return Condition(x.X, item)
	case *expr.Logical:
		if x.Or {
			return Condition(x.L, item) || Condition(x.R, item)
		}
		return Condition(x.L, item) && Condition(x.R, item)
	case *expr.Not:
		return !Condition(x.X, item)
	case *expr.Compare:
		l, lok := Operand(x.L, item)
		r, rok := Operand(x.R, item)
		if x.Op == expr.OpNe {
			// A missing attribute is not equal to anything.
			return !lok || !rok || !attr.Equal(l, r)
		}
		if !lok || !rok {
			return false
		}
		if x.Op == expr.OpEq {
			return attr.Equal(l, r)
		}
		c, ok := attr.Compare(l, r)
		if !ok {
			return false
		}
		switch x.Op {
		case expr.OpLt:
			return c < 0
		case expr.OpLe:
			return c <= 0
		case expr.OpGt:
			return c > 0
		case expr.OpGe:
			return c >= 0
		}
		return false
	case *expr.Between:
		v, ok1 := Operand(x.X, item)
		lo, ok2 := Operand(x.Lo, item)
		hi, ok3 := Operand(x.Hi, item)
		if !ok1 || !ok2 || !ok3 {
			return false
		}
		c1, ok := attr.Compare(lo, v)
		if !ok || c1 > 0 {
			return false
		}
		c2, ok := attr.Compare(v, hi)
		return ok && c2 <= 0
	case *expr.In:
		v, ok := Operand(x.X, item)
		if !ok {
			return false
		}
		for _, o := range x.List {
			if w, ok := Operand(o, item); ok && attr.Equal(v, w) {
				return true
			}
		}
		return false
	case *expr.Call:
		return call(x, item)
	}
	return false
}

func call(c *expr.Call, item attr.Item) bool {
	switch c.Name {
	case "attribute_exists", "attribute_not_exists":
		p, ok := expr.Unparen(c.Args[0]).(*expr.Path)
		if !ok {
			return false
		}
		_, exists := Resolve(item, p)
		return exists == (c.Name == "attribute_exists")
	case "attribute_type":
		v, ok1 := Operand(c.Args[0], item)
		t, ok2 := Operand(c.Args[1], item)
		return ok1 && ok2 && t.Kind() == attr.S && v.Kind().String() == t.Text()
	case "begins_with":
		v, ok1 := Operand(c.Args[0], item)
		p, ok2 := Operand(c.Args[1], item)
		if !ok1 || !ok2 || v.Kind() != p.Kind() || (v.Kind() != attr.S && v.Kind() != attr.B) {
			return false
		}
		return strings.HasPrefix(v.Text(), p.Text())
	case "contains":
		v, ok1 := Operand(c.Args[0], item)
		o, ok2 := Operand(c.Args[1], item)
		if !ok1 || !ok2 {
			return false
		}
		return contains(v, o)
	}
	return false
}

// contains implements contains(a, b): a substring of a string, a member of
// a set of b's type, or an element of a list.
func contains(v, o attr.Value) bool {
	switch v.Kind() {
	case attr.S:
		return o.Kind() == attr.S && strings.Contains(v.Text(), o.Text())
	case attr.B:
		return o.Kind() == attr.B && strings.Contains(v.Text(), o.Text())
	case attr.SS, attr.NS, attr.BS:
		member := map[attr.Kind]attr.Kind{attr.SS: attr.S, attr.NS: attr.N, attr.BS: attr.B}[v.Kind()]
		if o.Kind() != member {
			return false
		}
		for _, m := range v.Members() {
			if m == o.Text() {
				return true
			}
		}
	case attr.L:
		for _, e := range v.ListValue() {
			if attr.Equal(e, o) {
				return true
			}
		}
	}
	return false
}

// Operand evaluates an operand: a path (its value, if present), a
// :value, or size(path).
func Operand(e expr.Expr, item attr.Item) (attr.Value, bool) {
	switch x := e.(type) {
	case *expr.Paren:
		return Operand(x.X, item)
	case *expr.Path:
		return Resolve(item, x)
	case *expr.ValueRef:
		return x.Value, true
	case *expr.Call:
		if x.Name == "size" {
			v, ok := Operand(x.Args[0], item)
			if !ok {
				return attr.Value{}, false
			}
			return Size(v)
		}
	}
	return attr.Value{}, false
}

// Size implements size(): string length in characters, binary length in
// bytes, the number of elements of a set, list or map. Numbers, booleans
// and nulls have no size.
func Size(v attr.Value) (attr.Value, bool) {
	var n int
	switch v.Kind() {
	case attr.S:
		n = utf8.RuneCountInString(v.Text())
	case attr.B:
		n = len(v.Text())
	case attr.SS, attr.NS, attr.BS:
		n = len(v.Members())
	case attr.L:
		n = len(v.ListValue())
	case attr.M:
		n = len(v.MapValue())
	default:
		return attr.Value{}, false
	}
	return attr.Num(itoa(n)), true
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// projNode is a trie of projected paths.
type projNode struct {
	all      bool // the whole value at this point is projected
	children map[string]*projNode
	indexes  map[int]*projNode
}

func (n *projNode) child(el expr.Elem) *projNode {
	if el.IsIndex {
		if n.indexes == nil {
			n.indexes = map[int]*projNode{}
		}
		c := n.indexes[el.Index]
		if c == nil {
			c = &projNode{}
			n.indexes[el.Index] = c
		}
		return c
	}
	if n.children == nil {
		n.children = map[string]*projNode{}
	}
	c := n.children[el.Name]
	if c == nil {
		c = &projNode{}
		n.children[el.Name] = c
	}
	return c
}

// Projection applies a ProjectionExpression. Build it once per request
// and apply it to every item.
type Projection struct {
	root projNode
}

// NewProjection compiles checked paths.
func NewProjection(paths []*expr.Path) *Projection {
	p := &Projection{}
	for _, path := range paths {
		n := &p.root
		for _, el := range path.Elems {
			n = n.child(el)
		}
		n.all = true
	}
	return p
}

// Apply returns the projected copy of item: only the attributes and
// nested members named by the paths, with lists keeping the projected
// elements in index order. Paths that do not exist are left out.
func (p *Projection) Apply(item attr.Item) attr.Item {
	out := attr.Item{}
	for name, n := range p.root.children {
		v, ok := item[name]
		if !ok {
			continue
		}
		if pv, ok := project(v, n); ok {
			out[name] = pv
		}
	}
	return out
}

func project(v attr.Value, n *projNode) (attr.Value, bool) {
	if n.all {
		return v, true
	}
	switch v.Kind() {
	case attr.M:
		if len(n.children) == 0 {
			return attr.Value{}, false
		}
		m := map[string]attr.Value{}
		for name, c := range n.children {
			if e, ok := v.MapValue()[name]; ok {
				if pe, ok := project(e, c); ok {
					m[name] = pe
				}
			}
		}
		if len(m) == 0 {
			return attr.Value{}, false
		}
		return attr.Map(m), true
	case attr.L:
		if len(n.indexes) == 0 {
			return attr.Value{}, false
		}
		idx := make([]int, 0, len(n.indexes))
		for i := range n.indexes {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		var l []attr.Value
		for _, i := range idx {
			if i < len(v.ListValue()) {
				if pe, ok := project(v.ListValue()[i], n.indexes[i]); ok {
					l = append(l, pe)
				}
			}
		}
		if len(l) == 0 {
			return attr.Value{}, false
		}
		return attr.List(l), true
	}
	return attr.Value{}, false
}
