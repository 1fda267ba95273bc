package partiql

import (
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// UpdateExpression renders an UPDATE's actions as an UpdateExpression:
// SET path = value, REMOVE path, and SET path = set_add(path, set) /
// set_delete(path, set) as ADD and DELETE of the set's members, which is
// what DynamoDB makes of them (setFunctions.test.ts: adding to a missing
// attribute creates the set, removing every member removes it). Actions
// of one kind are joined into one clause in the order written.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html
func (b *Builder) UpdateExpression(actions []Action) (string, error) {
	var set, remove, add, del []string
	for _, a := range actions {
		path := b.Path(a.Path)
		if a.Kind == ActionRemove {
			remove = append(remove, path)
			continue
		}
		if c, ok := Unparen(a.Value).(*Call); ok {
			if fn := strings.ToUpper(c.Name); fn == "SET_ADD" || fn == "SET_DELETE" {
				v, err := b.setFunction(fn, a.Path, c)
				if err != nil {
					return "", err
				}
				if fn == "SET_ADD" {
					add = append(add, path+" "+v)
				} else {
					del = append(del, path+" "+v)
				}
				continue
			}
		}
		v, err := b.updateValue(a.Value)
		if err != nil {
			return "", err
		}
		set = append(set, path+" = "+v)
	}
	var clauses []string
	for _, c := range []struct {
		kw    string
		parts []string
	}{{"SET", set}, {"REMOVE", remove}, {"ADD", add}, {"DELETE", del}} {
		if len(c.parts) > 0 {
			clauses = append(clauses, c.kw+" "+strings.Join(c.parts, ", "))
		}
	}
	return strings.Join(clauses, " "), nil
}

// setFunction checks set_add(path, set) or set_delete(path, set) and
// returns the set's :value. Messages: partiqlFunctions.test.ts (real
// DynamoDB, October 2026).
func (b *Builder) setFunction(fn string, target *Path, c *Call) (string, error) {
	if len(c.Args) != 2 {
		return "", ddberr.Validation(fn + " must have exactly two arguments at " + c.At.String())
	}
	first, ok := Unparen(c.Args[0]).(*Path)
	if !ok || first.Names() != target.Names() {
		return "", ddberr.Validation("The first argument to " + fn + " must equal the assignment value at " + c.At.String())
	}
	notSet := ddberr.Validation("The second argument to " + fn + " must be a value with type SET at " + first.At.String())
	if !isConstant(c.Args[1]) {
		return "", notSet
	}
	v, err := Value(c.Args[1], b.Params)
	if err != nil {
		return "", err
	}
	if !v.Kind().IsSet() {
		return "", notSet
	}
	return b.Val(v), nil
}

// updateValue renders a SET value: a path, a value, a function call
// (list_append, if_not_exists) or + / - arithmetic.
func (b *Builder) updateValue(e Expr) (string, error) {
	switch x := e.(type) {
	case *Paren:
		inner, err := b.updateValue(x.X)
		return "(" + inner + ")", err
	case *Path:
		return b.Path(x), nil
	case *Literal, *Param, *Collection:
		v, err := Value(x, b.Params)
		if err != nil {
			return "", err
		}
		return b.Val(v), nil
	case *Binary:
		if x.Op != "+" && x.Op != "-" {
			break
		}
		l, err := b.updateValue(x.L)
		if err != nil {
			return "", err
		}
		r, err := b.updateValue(x.R)
		if err != nil {
			return "", err
		}
		return l + " " + x.Op + " " + r, nil
	case *Call:
		name := strings.ToLower(x.Name)
		args := make([]string, len(x.Args))
		for i, a := range x.Args {
			s, err := b.updateValue(a)
			if err != nil {
				return "", err
			}
			args[i] = s
		}
		return name + "(" + strings.Join(args, ", ") + ")", nil
	}
	return "", ddberr.Validation("Unsupported operation: " + describeExpr(e) + " as an update value")
}

// Item converts an INSERT's VALUE, which must be a map literal (or a map
// parameter), into the item to put. Each attribute's value is the root
// of the paths number errors name: {'m': {'x': 1e126}} is "under
// root.x" (partiqlGrammar.test.ts).
func Item(e Expr, params []attr.Value) (attr.Item, error) {
	if c, ok := Unparen(e).(*Collection); ok && c.Kind == CollMap {
		item := attr.Item{}
		for i, el := range c.Elems {
			k, err := Value(c.Keys[i], params)
			if err != nil {
				return nil, err
			}
			if k.Kind() != attr.S {
				return nil, ddberr.Validation("Unsupported data type: map key under key root at " + c.Keys[i].Pos().String())
			}
			if item[k.Text()], err = Value(el, params); err != nil {
				return nil, err
			}
		}
		return item, nil
	}
	v, err := Value(e, params)
	if err != nil {
		return nil, err
	}
	if v.Kind() != attr.M {
		return nil, ddberr.Validation("Unsupported operation: INSERT VALUE must be a tuple (a map)")
	}
	return attr.Item(v.MapValue()), nil
}
