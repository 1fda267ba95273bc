package design

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// actionKinds are the action kinds each multi-item operation takes.
var actionKinds = map[string][]string{
	TransactWriteItems: {ActionPut, ActionUpdate, ActionDelete, ActionCheck},
	BatchWriteItem:     {ActionPut, ActionDelete},
	BatchGetItem:       {ActionGet},
}

// multiPattern reads a multi-item pattern's actions; the fields of a
// one-item pattern (its key, index, entity, updates, returns, paging)
// may not be written beside them: each action names its entity and what
// it changes. A BatchGetItem returns the entities its gets name.
func (p *parser) multiPattern(pt *Pattern, m map[string]*yaml.Node) {
	for _, f := range []string{"key", "index", "entity", "updates", "returns", "order", "pageSize", "shards", "needs", "transaction"} {
		if v := m[f]; v != nil {
			why := "each action names its entity and what it changes"
			if f == "transaction" {
				why = "a TransactWriteItems is a transaction already, and a batch is none (write operation: TransactWriteItems for all or nothing)"
			}
			p.errorf(p.pos(v), "pattern %s: a %s pattern lists actions; leave %s: out (%s)", pt.ID, pt.Operation, f, why)
		}
	}
	n := m["actions"]
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		at := pt.Pos
		if n != nil {
			at = p.pos(n)
		}
		p.errorf(at, "pattern %s: a %s pattern lists its actions (actions: [{%s: ENTITY}, ...])", pt.ID, pt.Operation, actionKinds[pt.Operation][0])
		return
	}
	for _, an := range n.Content {
		a := p.action(pt, an)
		pt.Actions = append(pt.Actions, a)
		if a.Kind == ActionGet && a.Entity != "" && !slices.Contains(pt.Returns, a.Entity) {
			pt.Returns = append(pt.Returns, a.Entity)
		}
	}
}

// action reads one action: {put|update|delete|check|get: ENTITY, set:
// [ATTR], add: {ATTR: N}, condition: attribute_not_exists |
// attribute_exists, version: ATTR, count: N}.
func (p *parser) action(pt *Pattern, n *yaml.Node) *Action {
	a := &Action{Pos: p.pos(n), Count: 1}
	m := p.mapping(n, ActionPut, ActionUpdate, ActionDelete, ActionCheck, ActionGet, "set", "add", "condition", "version", "count")
	kinds := actionKinds[pt.Operation]
	for _, k := range []string{ActionPut, ActionUpdate, ActionDelete, ActionCheck, ActionGet} {
		v := m[k]
		if v == nil {
			continue
		}
		if a.Kind != "" {
			p.errorf(p.pos(v), "pattern %s: an action does one thing (%s or %s): write a second action", pt.ID, a.Kind, k)
			continue
		}
		a.Kind, a.Entity = k, p.str(v, k)
		if !slices.Contains(kinds, k) {
			p.errorf(p.pos(v), "pattern %s: a %s action has no place in a %s, whose actions are %s", pt.ID, k, pt.Operation, strings.Join(kinds, ", "))
		}
	}
	if a.Kind == "" {
		p.errorf(a.Pos, "pattern %s: an action names what it does and to which entity (%s: ENTITY)", pt.ID, strings.Join(kinds, ": ENTITY, "))
		return a
	}
	a.Set = p.strings(m["set"], "set")
	return p.actionFields(pt, a, m)
}

// actionFields reads what an action of pt (of a known kind) adds,
// conditions and counts, and checks them against its kind and pt's
// operation.
func (p *parser) actionFields(pt *Pattern, a *Action, m map[string]*yaml.Node) *Action {
	if an := m["add"]; an != nil {
		for _, kv := range p.entries(an) {
			f, err := strconv.ParseFloat(kv[1].Value, 64)
			if kv[1].Kind != yaml.ScalarNode || err != nil || f == 0 || math.IsInf(f, 0) || math.IsNaN(f) {
				p.errorf(p.pos(kv[1]), "pattern %s: add gives each counter the number it adds (add: {%s: 1}), not %q", pt.ID, kv[0].Value, kv[1].Value)
			}
			a.Add = append(a.Add, Counter{Attr: kv[0].Value, By: kv[1].Value})
		}
	}
	if cn := m["condition"]; cn != nil {
		a.Condition = p.str(cn, "condition")
		if a.Condition != NotExists && a.Condition != Exists {
			p.errorf(p.pos(cn), "pattern %s: condition is %s (the item must not exist yet: a guard, a put that must not overwrite) or %s, not %q", pt.ID, NotExists, Exists, a.Condition)
		}
	}
	a.Version = p.str(m["version"], "version")
	if cn := m["count"]; cn != nil {
		f := p.num(cn, "count")
		a.Count = int(f)
		if f < 1 || f != math.Trunc(f) {
			p.errorf(p.pos(cn), "pattern %s: count is how many items of the action one request holds, a whole number of at least 1", pt.ID)
			a.Count = 1
		}
	}
	switch {
	case a.Kind == ActionUpdate && len(a.Set) == 0 && len(a.Add) == 0:
		p.errorf(a.Pos, "pattern %s: an update says what it changes: set: [ATTR] or add: {COUNTER: 1}", pt.ID)
	case a.Kind != ActionUpdate && (m["set"] != nil || m["add"] != nil):
		p.errorf(a.Pos, "pattern %s: set and add belong to an update, not a %s", pt.ID, a.Kind)
	case a.Kind == ActionCheck && a.Condition == "" && a.Version == "":
		p.errorf(a.Pos, "pattern %s: a check (ConditionCheck) needs a condition (condition: %s) or a version", pt.ID, Exists)
	case pt.Operation != TransactWriteItems && (a.Condition != "" || a.Version != ""):
		p.errorf(a.Pos, "pattern %s: a %s takes no conditions; write operation: TransactWriteItems for a conditional write", pt.ID, pt.Operation)
	case a.Kind == ActionPut && a.Version != "":
		p.errorf(a.Pos, "pattern %s: a put replaces the whole item, so it cannot add one to its version; lock with version on an update (or put with condition: %s)", pt.ID, NotExists)
	}
	return a
}

// oneItemWrite reads a one-item write's condition:, version: and add:
// (beside its entity and updates) into pt.Write, checked as an action
// of its kind is; its counters and version join its Updates.
func (p *parser) oneItemWrite(pt *Pattern, m map[string]*yaml.Node) {
	var given *yaml.Node
	for _, f := range []string{"condition", "version", "add"} {
		if m[f] != nil && given == nil {
			given = m[f]
		}
	}
	if given == nil {
		return
	}
	switch {
	case pt.Multi():
		p.errorf(p.pos(given), "pattern %s: a %s pattern's conditions and counters are written on its actions", pt.ID, pt.Operation)
		return
	case pt.Kind != "write":
		p.errorf(p.pos(given), "pattern %s: condition, version and add belong to a write", pt.ID)
		return
	case pt.Statement != "":
		p.errorf(p.pos(given), "pattern %s: condition, version and add belong to a pattern written with entity:, not partiql:", pt.ID)
		return
	}
	kind := map[string]string{"": ActionPut, "PutItem": ActionPut, "UpdateItem": ActionUpdate, "DeleteItem": ActionDelete}[pt.Operation]
	one := &Pattern{ID: pt.ID, Operation: TransactWriteItems}
	a := p.actionFields(one, &Action{Kind: kind, Entity: pt.Entity, Set: slices.Clone(pt.Updates), Count: 1, Pos: p.pos(given)}, m)
	pt.Write = a
	pt.Updates = appendNew(pt.Updates, a.Updates())
}
