package check

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// IntentRule checks a write against what its pattern says it does: an
// increment written as a SET, and a put of an item that must stay unique
// (a guard) without attribute_not_exists.
var IntentRule = &Rule{
	Name: "write-intent",
	Doc: `An update whose pattern says it increments (or decrements, bumps, adds
one to) a Number must ADD to it (add: {ATTR: 1}): a SET writes the value
the caller computed from what it read, so two concurrent increments count
once. A put must have condition: attribute_not_exists when the item is a
guard (an entity named ...Guard, as the importers name them), when its
pattern says the item is unique, or when the same transaction counts it
(a counter update, and no put of it is conditional): without it a second put with the same key silently
replaces the first, and the counter counts twice.`,
	Run: func(pass *Pass) {
		for _, p := range pass.Design.Patterns {
			actions := p.Actions
			if !p.Multi() {
				a := oneItemAction(p)
				if a == nil {
					continue
				}
				actions = []*design.Action{a}
			}
			// A transaction that counts (a counter update) and puts
			// items none of which is conditional: a second run puts the
			// same item again and counts it twice.
			counts, guarded := false, false
			for _, a := range actions {
				counts = counts || a.Kind == design.ActionUpdate && (len(a.Add) > 0 || len(incrementSets(pass.Design, p, a)) > 0)
				guarded = guarded || a.Kind == design.ActionPut && a.Condition == design.NotExists
			}
			counts = counts && !guarded && p.Multi()
			for i, a := range actions {
				what := "pattern " + p.ID
				if p.Multi() {
					what += " action " + strconv.Itoa(i+1)
				}
				for _, s := range incrementSets(pass.Design, p, a) {
					pass.Reportf(a.Pos, design.Warning, "%s SETs %s, which the pattern says it increments (%q): a SET writes the value the caller computed from what it read, so two concurrent increments count once; write add: {%s: 1} (ADD is applied atomically by DynamoDB)", what, s, p.Description, s)
				}
				if a.Kind != design.ActionPut || a.Condition == design.NotExists || pass.Design.Entity(a.Entity) == nil {
					continue
				}
				why := ""
				switch {
				case strings.HasSuffix(a.Entity, "Guard"):
					why = a.Entity + " is a guard item"
				case uniqueWords.MatchString(p.Description):
					why = "the pattern says " + a.Entity + " is unique (" + p.Description + ")"
				case counts:
					why = "the transaction counts it (a counter update beside it, and no put of the transaction is conditional)"
				default:
					continue
				}
				pass.Reportf(a.Pos, design.Warning, "%s puts %s without condition: attribute_not_exists, but %s: a second put with the same key silently replaces the first%s; add condition: attribute_not_exists", what, a.Entity, why, countsTwice(counts))
			}
		}
	},
}

// incrementWords say a pattern increments a number.
var incrementWords = regexp.MustCompile(`(?i)\b(increment|decrement|bump|count(s|ing)? up|add(s|ing)? (one|1)\b)|\+ ?1\b`)

// uniqueWords say a pattern's item must stay unique.
var uniqueWords = regexp.MustCompile(`(?i)\b(unique|uniqueness|guard)`)

// incrementSets are the Number attributes an update SETs while its
// pattern's description says it increments them.
func incrementSets(d *design.Design, p *design.Pattern, a *design.Action) []string {
	e := d.Entity(a.Entity)
	if a.Kind != design.ActionUpdate || e == nil || !incrementWords.MatchString(p.Description) {
		return nil
	}
	var out []string
	for _, s := range a.Set {
		if at := e.Attribute(s); at != nil && at.Type == "N" && s != a.Version {
			out = append(out, s)
		}
	}
	return out
}

// oneItemAction is a one-item write of p read as an action (nil if p is
// no such write): its Write, or its entity and updates.
func oneItemAction(p *design.Pattern) *design.Action {
	if p.Write != nil {
		return p.Write
	}
	kind := map[string]string{"": design.ActionPut, "PutItem": design.ActionPut, "UpdateItem": design.ActionUpdate}[p.Operation]
	if p.Kind != "write" || p.Statement != "" || p.Entity == "" || kind == "" {
		return nil
	}
	return &design.Action{Kind: kind, Entity: p.Entity, Set: p.Updates, Count: 1, Pos: p.Pos}
}

func countsTwice(counts bool) string {
	if counts {
		return ", and the counter counts it again"
	}
	return ""
}
