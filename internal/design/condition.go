package design

import (
	"fmt"
	"strings"
)

// Condition is one part of a pattern's key condition: an attribute, an
// operator and its template operands.
type Condition struct {
	Attr string
	// Op is =, <, <=, >, >=, begins_with or between.
	Op     string
	Values []Template
}

// String returns the condition in the design file's notation.
func (c Condition) String() string {
	switch c.Op {
	case "between":
		return fmt.Sprintf("%s between %s and %s", c.Attr, c.Values[0], c.Values[1])
	case "begins_with":
		return fmt.Sprintf("%s begins_with %s", c.Attr, c.Values[0])
	}
	return fmt.Sprintf("%s %s %s", c.Attr, c.Op, c.Values[0])
}

// ParseKeyCondition parses a key condition in template terms:
//
//	PK = USER#<UserName> AND SK begins_with ORDER#
//	GSI1PK = ORDER AND GSI1SK between STATUS#<Status>#<from> and STATUS#<Status>#<to>
//
// Conditions are joined by AND; an operator is =, <, <=, >, >=,
// begins_with or between ... and ...; operands are templates without
// spaces. This is the notation of DynamoDB's KeyConditionExpression with
// templates for values.
func ParseKeyCondition(s string) ([]Condition, error) {
	toks := strings.Fields(s)
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty key condition")
	}
	var conds []Condition
	for i := 0; i < len(toks); {
		if len(conds) > 0 {
			if !strings.EqualFold(toks[i], "AND") {
				return nil, fmt.Errorf("%q: want AND between conditions, found %q", s, toks[i])
			}
			i++
		}
		if i+1 >= len(toks) {
			return nil, fmt.Errorf("%q: a condition needs an attribute, an operator and a value", s)
		}
		attr, op := toks[i], strings.ToLower(toks[i+1])
		c := Condition{Attr: attr, Op: op}
		n := 1
		switch op {
		case "=", "<", "<=", ">", ">=", "begins_with":
		case "between":
			n = 3
		default:
			return nil, fmt.Errorf("%q: unknown operator %q (want =, <, <=, >, >=, begins_with or between)", s, toks[i+1])
		}
		if i+2+n > len(toks) {
			return nil, fmt.Errorf("%q: %s %s needs %s", s, attr, op, map[int]string{1: "a value", 3: "two values joined by and"}[n])
		}
		vals := toks[i+2 : i+2+n]
		if op == "between" {
			if !strings.EqualFold(vals[1], "and") {
				return nil, fmt.Errorf("%q: between needs two values joined by and", s)
			}
			vals = []string{vals[0], vals[2]}
		}
		for _, v := range vals {
			t, err := ParseTemplate(v)
			if err != nil {
				return nil, err
			}
			c.Values = append(c.Values, t)
		}
		conds = append(conds, c)
		i += 2 + n
	}
	return conds, nil
}
