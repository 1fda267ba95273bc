package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// InputsRule checks a pattern's key against what the pattern is given
// (given: [orderId], the inputs column of the access-pattern chart): a
// Query or GetItem must build its key from values the caller has, and an
// UpdateItem or DeleteItem needs every variable of the item's table key.
// A pattern without given is not checked: every variable of its key is
// taken as given.
//
// Source: the access-pattern chart of The DynamoDB Book's design process
// (../shared/seeds/004, "Define the access patterns"; seed 001's "Order
// by id (no customer known)").
var InputsRule = &Rule{
	Name: "inputs",
	Doc: `A pattern may declare what its caller has (given: [orderId]). Every variable of
its key must be one of them: a request for "an order by its id" cannot
build PK = CUSTOMER#<customerId>. The rule reports each variable the key
needs and the pattern is not given, and names an index whose partition key
the pattern could build from what it has; an UpdateItem or DeleteItem
needs the whole table key of its item. <shard> is never an input (the
client computes it, or queries each shard).`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, p := range d.Patterns {
			if p.Given == nil {
				continue
			}
			switch {
			case p.Multi():
				// Each action but a put (given its whole item) needs its
				// item's table key.
				for i, a := range p.Actions {
					if a.Kind != design.ActionPut {
						checkWriteInputs(pass, &design.Pattern{ID: fmt.Sprintf("%s action %d", p.ID, i+1), Operation: a.Operation(), Entity: a.Entity, Given: p.Given, GivenPos: p.GivenPos})
					}
				}
			case p.Kind == "read" && p.Operation != "Scan":
				checkReadInputs(pass, p)
			case p.Kind == "write" && p.Operation != "PutItem" && p.Operation != "":
				checkWriteInputs(pass, p)
			}
		}
	},
}

// missingInputs returns the variables of ts that are not given, in order.
func missingInputs(given []string, ts ...design.Template) []string {
	var out []string
	for _, t := range ts {
		for _, v := range t.Vars() {
			if v != "shard" && !slices.Contains(given, v) && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// givenText renders a pattern's given list for messages.
func givenText(given []string) string {
	if len(given) == 0 {
		return "it is given nothing"
	}
	return "it is given only " + strings.Join(given, ", ")
}

// misspelt says which given name looks like a missing variable.
func misspelt(given, missing []string) string {
	for _, m := range missing {
		for _, g := range given {
			if closest(g, []string{m}) == m {
				return fmt.Sprintf("; given names %s: is it %s?", g, m)
			}
		}
	}
	return ""
}

func checkReadInputs(pass *Pass, p *design.Pattern) {
	d := pass.Design
	for _, c := range p.Conditions {
		missing := missingInputs(p.Given, c.Values...)
		if len(missing) == 0 {
			continue
		}
		fix := fmt.Sprintf("add %s to given if the caller has %s", strings.Join(missing, ", "), pronoun(missing))
		if alt := indexFromGiven(d, p); alt != "" {
			fix = "read " + alt + " instead, or " + fix
		}
		pass.Reportf(p.KeyPos, design.Error, "pattern %s needs %s for %s, but %s: the caller cannot build that key%s; %s",
			p.ID, strings.Join(missing, " and "), c.String(), givenText(p.Given), misspelt(p.Given, missing), fix)
	}
}

func checkWriteInputs(pass *Pass, p *design.Pattern) {
	d := pass.Design
	e := d.Entity(p.Entity)
	if e == nil {
		return
	}
	var ts []design.Template
	var keys []string
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		t, _, _, _ := e.ValueOf(ka.Name)
		ts = append(ts, t)
		keys = append(keys, ka.Name+" = "+t.Text)
	}
	missing := missingInputs(p.Given, ts...)
	if len(missing) == 0 {
		return
	}
	pass.Reportf(p.GivenPos, design.Error, "pattern %s is %s %s of %s, which needs its whole table key (%s), so %s too, but %s%s: read the item first (a pattern given what the caller has), or add %s to given if the caller has %s",
		p.ID, article(p.Operation), p.Operation, e.Name, strings.Join(keys, ", "), strings.Join(missing, " and "), givenText(p.Given), misspelt(p.Given, missing), strings.Join(missing, ", "), pronoun(missing))
}

// article is a or an before word.
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func pronoun(names []string) string {
	if len(names) == 1 {
		return "it"
	}
	return "them"
}

// indexFromGiven names the table or a GSI where a returned entity's
// partition key is built only from what p is given (GSI1, GSI1PK =
// ORDER#<orderId>), or "".
func indexFromGiven(d *design.Design, p *design.Pattern) string {
	for _, space := range d.PartitionSpaces() {
		if space == p.Index {
			continue
		}
		pk, _, _ := d.KeySchema(space)
		for _, name := range p.Returns {
			e := d.Entity(name)
			if e == nil || !d.InIndex(e, space) {
				continue
			}
			var ts []design.Template
			var texts []string
			for _, ka := range pk {
				t, _, _, _ := e.ValueOf(ka.Name)
				ts = append(ts, t)
				texts = append(texts, ka.Name+" = "+t.Text)
			}
			if len(missingInputs(p.Given, ts...)) == 0 && !slices.ContainsFunc(ts, design.Template.Constant) {
				return fmt.Sprintf("%s (%s builds %s)", indexLabel(space), e.Name, strings.Join(texts, ", "))
			}
		}
	}
	return ""
}
