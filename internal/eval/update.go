package eval

import (
	"sort"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
)

// Update runtime errors, verbatim from DynamoDB.
const (
	msgBadOperandType = "An operand in the update expression has an incorrect data type"
	msgInvalidPath    = "The document path provided in the update expression is invalid for update"
	msgMissingOperand = "The provided expression refers to an attribute that does not exist in the item"
)

// ApplyUpdate applies an UpdateExpression to item (nil when there is no
// item yet) and returns the new item; item itself is not modified.
//
// As in DynamoDB, every SET value is computed from the item as it was
// before the update; SET past the end of a list appends; REMOVE of list
// elements removes by the indexes of the original list; ADD to a missing
// number starts from 0 and to a missing set creates it; DELETE of every
// member of a set removes the attribute. Errors are ValidationExceptions.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html
func ApplyUpdate(item attr.Item, u *expr.Update) (attr.Item, error) {
	root := attr.Map(map[string]attr.Value(item.Clone()))
	// Resolve SET values against the original item first.
	var setValues []attr.Value
	for _, a := range u.Actions() {
		if a.Kind != expr.ActionSet {
			continue
		}
		v, err := setValue(a.Value, item)
		if err != nil {
			return nil, err
		}
		setValues = append(setValues, v)
	}
	var err error
	for _, c := range u.Clauses {
		switch c.Kind {
		case expr.ActionSet:
			for _, a := range c.Actions {
				if root, err = assign(root, a.Path.Elems, setValues[0]); err != nil {
					return nil, err
				}
				setValues = setValues[1:]
			}
		case expr.ActionRemove:
			// Highest list index first, so that earlier removals do not
			// shift later ones.
			paths := make([]*expr.Path, len(c.Actions))
			for i, a := range c.Actions {
				paths[i] = a.Path
			}
			sort.SliceStable(paths, func(i, j int) bool { return laterIndex(paths[i], paths[j]) })
			for _, p := range paths {
				if root, err = remove(root, p.Elems); err != nil {
					return nil, err
				}
			}
		case expr.ActionAdd, expr.ActionDelete:
			for _, a := range c.Actions {
				operand := a.Value.(*expr.ValueRef).Value
				cur, exists := Resolve(mapItem(root), a.Path)
				nv, keep, err := addOrDelete(c.Kind, cur, exists, operand)
				if err != nil {
					return nil, err
				}
				// remove of a missing attribute changes nothing but,
				// as for REMOVE, its container must exist: DELETE of
				// b.a where b is a string is an invalid document path
				// (dynalite's updateItem.js "update non-existent nested
				// attribute in existing item", checked against
				// DynamoDB; ../shared/cases/behaviour.jsonl).
				if keep {
					root, err = assign(root, a.Path.Elems, nv)
				} else {
					root, err = remove(root, a.Path.Elems)
				}
				if err != nil {
					return nil, err
				}
			}
		}
	}
	return mapItem(root), nil
}

func mapItem(v attr.Value) attr.Item { return attr.Item(v.MapValue()) }

// laterIndex orders paths so that, for paths into the same list, the one
// with the higher index comes first.
func laterIndex(a, b *expr.Path) bool {
	n := min(len(a.Elems), len(b.Elems))
	for i := 0; i < n; i++ {
		ea, eb := a.Elems[i], b.Elems[i]
		if ea.IsIndex && eb.IsIndex && ea.Index != eb.Index {
			return ea.Index > eb.Index
		}
		if ea.IsIndex != eb.IsIndex || ea.Name != eb.Name {
			return false
		}
	}
	return false
}

// setValue computes a SET value from the original item.
func setValue(e expr.Expr, item attr.Item) (attr.Value, error) {
	switch x := e.(type) {
	case *expr.Paren:
		return setValue(x.X, item)
	case *expr.ValueRef:
		return x.Value, nil
	case *expr.Path:
		v, ok := Resolve(item, x)
		if !ok {
			return attr.Value{}, ddberr.Validation(msgMissingOperand)
		}
		return v, nil
	case *expr.Arith:
		l, err := setValue(x.L, item)
		if err != nil {
			return attr.Value{}, err
		}
		r, err := setValue(x.R, item)
		if err != nil {
			return attr.Value{}, err
		}
		if l.Kind() != attr.N || r.Kind() != attr.N {
			return attr.Value{}, ddberr.Validation(msgBadOperandType)
		}
		n, err := attr.AddNumbers(l.Text(), r.Text(), x.Op == expr.OpMinus)
		if err != nil {
			return attr.Value{}, err
		}
		return attr.Num(n), nil
	case *expr.Call:
		switch x.Name {
		case "if_not_exists":
			if p, ok := expr.Unparen(x.Args[0]).(*expr.Path); ok {
				if v, ok := Resolve(item, p); ok {
					return v, nil
				}
			}
			return setValue(x.Args[1], item)
		case "list_append":
			l, err := setValue(x.Args[0], item)
			if err != nil {
				return attr.Value{}, err
			}
			r, err := setValue(x.Args[1], item)
			if err != nil {
				return attr.Value{}, err
			}
			if l.Kind() != attr.L || r.Kind() != attr.L {
				return attr.Value{}, ddberr.Validation(msgBadOperandType)
			}
			out := make([]attr.Value, 0, len(l.ListValue())+len(r.ListValue()))
			out = append(out, l.ListValue()...)
			return attr.List(append(out, r.ListValue()...)), nil
		}
	}
	return attr.Value{}, ddberr.Validation(msgBadOperandType)
}

// addOrDelete computes the result of ADD or DELETE on the current value.
// keep is false when the attribute is to be removed (a set emptied by
// DELETE, or DELETE on a missing attribute).
func addOrDelete(kind expr.ActionKind, cur attr.Value, exists bool, operand attr.Value) (attr.Value, bool, error) {
	if exists && cur.Kind() != operand.Kind() {
		return attr.Value{}, false, ddberr.Validation(msgBadOperandType)
	}
	if kind == expr.ActionAdd {
		if operand.Kind() == attr.N {
			base := "0"
			if exists {
				base = cur.Text()
			}
			n, err := attr.AddNumbers(base, operand.Text(), false)
			if err != nil {
				return attr.Value{}, false, err
			}
			return attr.Num(n), true, nil
		}
		if !exists {
			return operand, true, nil
		}
		return attr.Set(cur.Kind(), union(cur.Kind(), cur.Members(), operand.Members())), true, nil
	}
	if !exists {
		return attr.Value{}, false, nil
	}
	rest := difference(cur.Members(), operand.Members())
	if len(rest) == 0 {
		return attr.Value{}, false, nil
	}
	return attr.Set(cur.Kind(), rest), true, nil
}

// union returns the members of sets a and b (of kind k) in DynamoDB's
// order.
func union(k attr.Kind, a, b []string) []string {
	seen := make(map[string]bool, len(a))
	out := append(make([]string, 0, len(a)+len(b)), a...)
	for _, s := range a {
		seen[s] = true
	}
	for _, s := range b {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	attr.SortMembers(k, out)
	return out
}

func difference(a, b []string) []string {
	drop := make(map[string]bool, len(b))
	for _, s := range b {
		drop[s] = true
	}
	var out []string
	for _, s := range a {
		if !drop[s] {
			out = append(out, s)
		}
	}
	return out
}

// assign returns root with the value at elems set to v. Containers along
// the path must exist (else msgInvalidPath); an index past the end of a
// list appends.
func assign(root attr.Value, elems []expr.Elem, v attr.Value) (attr.Value, error) {
	el := elems[0]
	last := len(elems) == 1
	switch root.Kind() {
	case attr.M:
		if el.IsIndex {
			return attr.Value{}, ddberr.Validation(msgInvalidPath)
		}
		m := root.MapValue()
		nv := v
		if !last {
			child, ok := m[el.Name]
			if !ok {
				return attr.Value{}, ddberr.Validation(msgInvalidPath)
			}
			var err error
			if nv, err = assign(child, elems[1:], v); err != nil {
				return attr.Value{}, err
			}
		}
		out := make(map[string]attr.Value, len(m)+1)
		for k, x := range m {
			out[k] = x
		}
		out[el.Name] = nv
		return attr.Map(out), nil
	case attr.L:
		if !el.IsIndex {
			return attr.Value{}, ddberr.Validation(msgInvalidPath)
		}
		l := root.ListValue()
		if !last {
			if el.Index >= len(l) {
				return attr.Value{}, ddberr.Validation(msgInvalidPath)
			}
			nv, err := assign(l[el.Index], elems[1:], v)
			if err != nil {
				return attr.Value{}, err
			}
			out := append([]attr.Value(nil), l...)
			out[el.Index] = nv
			return attr.List(out), nil
		}
		out := append([]attr.Value(nil), l...)
		if el.Index >= len(out) {
			return attr.List(append(out, v)), nil
		}
		out[el.Index] = v
		return attr.List(out), nil
	}
	return attr.Value{}, ddberr.Validation(msgInvalidPath)
}

// remove returns root without the value at elems. Removing something that
// is not there is not an error, but its container must exist.
func remove(root attr.Value, elems []expr.Elem) (attr.Value, error) {
	el := elems[0]
	last := len(elems) == 1
	switch root.Kind() {
	case attr.M:
		if el.IsIndex {
			return attr.Value{}, ddberr.Validation(msgInvalidPath)
		}
		m := root.MapValue()
		child, ok := m[el.Name]
		if !ok {
			if last {
				return root, nil
			}
			return attr.Value{}, ddberr.Validation(msgInvalidPath)
		}
		out := make(map[string]attr.Value, len(m))
		for k, x := range m {
			out[k] = x
		}
		if last {
			delete(out, el.Name)
		} else {
			nv, err := remove(child, elems[1:])
			if err != nil {
				return attr.Value{}, err
			}
			out[el.Name] = nv
		}
		return attr.Map(out), nil
	case attr.L:
		if !el.IsIndex {
			return attr.Value{}, ddberr.Validation(msgInvalidPath)
		}
		l := root.ListValue()
		if el.Index >= len(l) {
			if last {
				return root, nil
			}
			return attr.Value{}, ddberr.Validation(msgInvalidPath)
		}
		if last {
			out := append(append([]attr.Value(nil), l[:el.Index]...), l[el.Index+1:]...)
			return attr.List(out), nil
		}
		nv, err := remove(l[el.Index], elems[1:])
		if err != nil {
			return attr.Value{}, err
		}
		out := append([]attr.Value(nil), l...)
		out[el.Index] = nv
		return attr.List(out), nil
	}
	return attr.Value{}, ddberr.Validation(msgInvalidPath)
}

// ApplyAttributeUpdates applies legacy AttributeUpdates to item (nil when
// there is no item yet) and returns the new item.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_AttributeValueUpdate.html
func ApplyAttributeUpdates(item attr.Item, updates map[string]expr.LegacyUpdate) (attr.Item, error) {
	out := item.Clone()
	if out == nil {
		out = attr.Item{}
	}
	names := make([]string, 0, len(updates))
	for n := range updates {
		names = append(names, n)
	}
	sort.Strings(names)
	const mismatch = "Type mismatch for attribute to update"
	for _, name := range names {
		u := updates[name]
		cur, exists := out[name]
		switch u.Action {
		case "PUT":
			out[name] = *u.Value
		case "ADD":
			v := *u.Value
			switch {
			case v.Kind() == attr.N:
				if exists && cur.Kind() != attr.N {
					return nil, ddberr.Validation(mismatch)
				}
				base := "0"
				if exists {
					base = cur.Text()
				}
				n, err := attr.AddNumbers(base, v.Text(), false)
				if err != nil {
					return nil, err
				}
				out[name] = attr.Num(n)
			case v.Kind() == attr.L:
				if exists && cur.Kind() != attr.L {
					return nil, ddberr.Validation(mismatch)
				}
				l := append([]attr.Value(nil), cur.ListValue()...)
				out[name] = attr.List(append(l, v.ListValue()...))
			default:
				if exists && cur.Kind() != v.Kind() {
					return nil, ddberr.Validation(mismatch)
				}
				if !exists {
					out[name] = v
				} else {
					out[name] = attr.Set(v.Kind(), union(v.Kind(), cur.Members(), v.Members()))
				}
			}
		case "DELETE":
			if u.Value == nil {
				delete(out, name)
				continue
			}
			if !exists {
				continue
			}
			if cur.Kind() != u.Value.Kind() {
				return nil, ddberr.Validation(mismatch)
			}
			rest := difference(cur.Members(), u.Value.Members())
			if len(rest) == 0 {
				delete(out, name)
			} else {
				out[name] = attr.Set(cur.Kind(), rest)
			}
		}
	}
	return out, nil
}
