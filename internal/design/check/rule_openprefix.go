package check

import (
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// OpenPrefixRule finds a begins_with whose prefix ends with a variable:
// it also reads the items of every longer value that starts with the same
// characters. DynamoDB's begins_with compares the key's bytes with the
// prefix's (API reference, Query: "begins_with (a, substr) — true if the
// value of attribute a begins with a particular substring";
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html),
// so begins_with TASK#<TaskNo> with TaskNo 1 reads task 1 and tasks 10 to
// 19, 100 and on, with their comments. A number of no fixed width always
// has such neighbours: an error. A string may not (UUIDs all have one
// length; declared values that are no prefix of one another): a warning,
// unless its declared values show it cannot happen.
var OpenPrefixRule = &Rule{
	Name: "open-prefix",
	Doc: `A begins_with that ends with a variable (SK begins_with TASK#<TaskNo>)
reads every item whose value starts with the same characters: TaskNo 1
reads tasks 10 to 19 too. End the prefix, and the keys it reads, with a
delimiter (TASK#<TaskNo>#), or give a number a fixed width (<TaskNo:08d>).`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, p := range d.Patterns {
			if p.Kind != "read" {
				continue
			}
			for _, c := range p.Conditions {
				if c.Op != "begins_with" || len(c.Values) != 1 || len(c.Values[0].Parts) == 0 {
					continue
				}
				last := c.Values[0].Parts[len(c.Values[0].Parts)-1]
				if last.Var == "" || last.Width > 0 {
					continue
				}
				typ, values := variableOf(d, p, last.Var)
				if values != nil && !anyPrefix(values) {
					continue
				}
				sev, example := design.Warning, "a value that is the start of a longer one, unless all its values have one length (as UUIDs do)"
				if typ == "N" {
					sev, example = design.Error, "1 reads 10 to 19 and 100 on"
				}
				pass.Reportf(p.KeyPos, sev, "pattern %s: %s begins_with %s ends with <%s>, so it also reads the items of every longer %s that starts with the same characters (%s); end the prefix, and the keys it reads, with a delimiter (%s#), or give <%s> a fixed width (<%s:08d>)",
					p.ID, c.Attr, c.Values[0], last.Var, last.Var, example, c.Values[0], last.Var, last.Var)
			}
		}
	},
}

// variableOf returns the type of the attribute a pattern's variable
// stands for, in the first entity it returns that has it, and that
// attribute's declared values (nil: any).
func variableOf(d *design.Design, p *design.Pattern, v string) (typ string, values []string) {
	for _, name := range p.Returns {
		if e := d.Entity(name); e != nil {
			if a := e.Attribute(v); a != nil {
				return a.Type, a.Values
			}
		}
	}
	return "", nil
}

// anyPrefix reports whether one of values starts another.
func anyPrefix(values []string) bool {
	for i, a := range values {
		for j, b := range values {
			if i != j && strings.HasPrefix(b, a) {
				return true
			}
		}
	}
	return false
}
