package check

import (
	"fmt"
	"slices"

	"github.com/dynago/dynago/internal/design"
)

// MultiItemRule checks transactions and batches against DynamoDB's limits
// on one request, and what their actions change against their entities.
var MultiItemRule = &Rule{
	Name: "multi-item",
	Doc: `A TransactWriteItems holds at most 100 actions and 4 MB of items, a
BatchWriteItem 25 puts or deletes and 16 MB, a BatchGetItem 100 gets (and
returns at most 16 MB, the rest as UnprocessedKeys): a request past a
limit is refused, so the pattern must split it; so is one that names an
item twice (two actions on an entity whose table key is a constant). Sizes are the entities'
typical item sizes times each action's count. An update's add: counters
and a version: attribute, in a transaction or on a one-item write, are
Numbers (ADD adds to a number; a version is compared and incremented).`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, p := range d.Patterns {
			if p.Write != nil {
				checkAction(pass, p, p.Write) // a one-item write's counters and version
			}
			if !p.Multi() {
				continue
			}
			checkMultiLimits(pass, p)
			checkOneItemTwice(pass, p)
			for _, a := range p.Actions {
				checkAction(pass, p, a)
			}
		}
	},
}

// multiLimits are each multi-item operation's limits on one request:
// items, and bytes (the items written, or read back).
//
// Source: design.MaxTransactActions and the rest (the API reference of
// each operation).
var multiLimits = map[string]struct {
	items, bytes int
	what         string
}{
	design.TransactWriteItems: {design.MaxTransactActions, design.MaxTransactBytes, "actions"},
	design.BatchWriteItem:     {design.MaxBatchWrites, design.MaxBatchWriteBytes, "puts and deletes"},
	design.BatchGetItem:       {design.MaxBatchGets, design.MaxBatchGetBytes, "gets"},
}

// checkMultiLimits checks one request of p against its operation's limits.
func checkMultiLimits(pass *Pass, p *design.Pattern) {
	lim := multiLimits[p.Operation]
	if n := p.Items(); n > lim.items {
		pass.Reportf(p.Pos, design.Error, "pattern %s: one %s holds at most %d %s, and this one holds %d (the actions' counts): DynamoDB refuses it with a ValidationException; split it into %d requests%s",
			p.ID, p.Operation, lim.items, lim.what, n, (n+lim.items-1)/lim.items, atomicity(p))
	}
	b := pass.Design.RequestBytes(p)
	if b <= lim.bytes {
		return
	}
	if p.Operation == design.BatchGetItem {
		pass.Reportf(p.Pos, design.Warning, "pattern %s: its gets read %s at the entities' typical sizes, past the %s a BatchGetItem returns: the rest come back as UnprocessedKeys, so the caller must ask again for them (or get fewer items a request)",
			p.ID, mb(b), mb(lim.bytes))
		return
	}
	pass.Reportf(p.Pos, design.Error, "pattern %s: its items come to %s at the entities' typical sizes, past the %s one %s may hold: DynamoDB refuses it; write fewer items a request%s",
		p.ID, mb(b), mb(lim.bytes), p.Operation, atomicity(p))
}

// checkOneItemTwice reports a request that names one item twice: two
// actions (or a count above one) on an entity whose table key is a
// constant, which every action then targets. DynamoDB refuses it: "no two
// actions can target the same item" (API reference, TransactWriteItems),
// and a batch's duplicate keys are a ValidationException ("Provided list
// of item keys contains duplicates", as internal/engine/batch_write_item.go
// and batch_get_item.go answer).
func checkOneItemTwice(pass *Pass, p *design.Pattern) {
	d := pass.Design
	n := map[string]int{}
	var order []string
	for _, a := range p.Actions {
		e := d.Entity(a.Entity)
		if e == nil {
			continue
		}
		constant := true
		for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
			t, _, _, _ := e.ValueOf(ka.Name)
			constant = constant && t.Constant()
		}
		if constant {
			if n[e.Name] == 0 {
				order = append(order, e.Name)
			}
			n[e.Name] += a.Count
		}
	}
	for _, name := range order {
		if n[name] > 1 {
			pass.Reportf(p.Pos, design.Error, "pattern %s names %s %d times, but its table key is a constant, so every one is the same item: DynamoDB refuses a %s that names an item twice (%s); name it once", p.ID, name, n[name], p.Operation, twiceError[p.Operation])
		}
	}
}

// twiceError is each operation's error for an item named twice.
var twiceError = map[string]string{
	design.TransactWriteItems: "Transaction request cannot include multiple operations on one item",
	design.BatchWriteItem:     "Provided list of item keys contains duplicates",
	design.BatchGetItem:       "Provided list of item keys contains duplicates",
}

// atomicity is what splitting a transaction costs, for messages.
func atomicity(p *design.Pattern) string {
	if p.Operation == design.TransactWriteItems {
		return " (each is atomic on its own, not together)"
	}
	return ""
}

// mb renders a byte count in MB for messages.
func mb(b int) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

// checkAction checks an action's counters and version attribute against
// its entity: each is a Number attribute of it. (What an update changes
// that the entity lacks is the write-path rule's, which reads every
// action as a write.)
func checkAction(pass *Pass, p *design.Pattern, a *design.Action) {
	e := pass.Design.Entity(a.Entity)
	if e == nil {
		return // the templates rule reports it
	}
	number := func(name, role, why string) {
		at := e.Attribute(name)
		switch {
		case at == nil && a.Kind == design.ActionUpdate:
			// The write-path rule reports what an update changes that
			// the entity does not have.
		case at == nil:
			pass.Reportf(a.Pos, design.Error, "pattern %s: %s %s is not an attribute of %s%s", p.ID, role, name, e.Name, didYouMean(name, attrNames(e)))
		case at.Type != "N":
			pass.Reportf(a.Pos, design.Error, "pattern %s: %s %s of %s is declared %s, but %s: declare it N", p.ID, role, name, e.Name, at.Type, why)
		}
	}
	for _, c := range a.Add {
		number(c.Attr, "counter", "ADD adds to a Number (on any other type the update fails with a ValidationException)")
	}
	if a.Version != "" {
		number(a.Version, "version attribute", "the version is compared and incremented as a Number")
	}
	for _, s := range a.Set {
		if slices.ContainsFunc(a.Add, func(c design.Counter) bool { return c.Attr == s }) || s == a.Version {
			pass.Reportf(a.Pos, design.Error, "pattern %s: the update both sets and adds to %s: DynamoDB refuses two operations on one attribute in an update expression", p.ID, s)
		}
	}
}
