package design

import (
	"fmt"
	"slices"
	"strings"
)

// Multi-item operations: a pattern whose operation is TransactWriteItems,
// BatchWriteItem or BatchGetItem lists its Actions, one per kind of item
// the request holds, each naming its entity:
//
//	- id: like-post
//	  operation: TransactWriteItems
//	  actions:
//	    - {put: Like, condition: attribute_not_exists}  # a user likes a post once
//	    - {update: Post, add: {LikeCount: 1}, condition: attribute_exists}
//
// A TransactWriteItems action puts, updates (set: attributes, add:
// counters), deletes or checks (a ConditionCheck) an item; a condition is
// attribute_not_exists (the item must not exist yet: a uniqueness guard,
// or a put that must not overwrite) or attribute_exists, and version:
// ATTR locks optimistically (the item's ATTR must still hold the value
// the caller read, and the update adds one to it). A BatchWriteItem action
// puts or deletes, with no condition; a BatchGetItem action gets. count
// is how many items of that action one request holds (default 1).

// Multi-item operations.
const (
	TransactWriteItems = "TransactWriteItems"
	BatchWriteItem     = "BatchWriteItem"
	BatchGetItem       = "BatchGetItem"
)

// Action kinds.
const (
	ActionPut    = "put"
	ActionUpdate = "update"
	ActionDelete = "delete"
	ActionCheck  = "check" // a ConditionCheck
	ActionGet    = "get"
)

// Conditions an action may put on its item.
const (
	NotExists = "attribute_not_exists"
	Exists    = "attribute_exists"
)

// Limits of one multi-item request.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
// ("up to 100 action requests ... The aggregate size of the items in the
// transaction cannot exceed 4 MB"),
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
// ("up to 16MB of data ... up to 25 item put or delete operations") and
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
// ("up to 16 MB of data, which can contain as many as 100 items"; more
// than 100 is a ValidationException, more than 16 MB a partial result).
const (
	MaxTransactActions = 100
	MaxTransactBytes   = 4 << 20
	MaxBatchWrites     = 25
	MaxBatchWriteBytes = 16 << 20
	MaxBatchGets       = 100
	MaxBatchGetBytes   = 16 << 20
)

// Action is one kind of item a multi-item pattern's request holds.
type Action struct {
	// Kind is put, update, delete or check (TransactWriteItems), put or
	// delete (BatchWriteItem), or get (BatchGetItem).
	Kind   string
	Entity string
	// Set are the attributes an update SETs; Add the counters it ADDs to.
	Set []string
	Add []Counter
	// Condition is NotExists, Exists or "" (none); Version the number
	// attribute that locks the item optimistically ("" for none).
	Condition string
	Version   string
	// Count is how many items of this action one request holds (at
	// least 1).
	Count int
	Pos   Pos
}

// Counter is an attribute an update ADDs a number to (By, its text, may
// be negative).
type Counter struct {
	Attr, By string
}

// IsMulti reports whether op is a multi-item operation.
func IsMulti(op string) bool {
	return op == TransactWriteItems || op == BatchWriteItem || op == BatchGetItem
}

// Multi reports whether p is a multi-item pattern (its request holds
// Actions).
func (p *Pattern) Multi() bool { return IsMulti(p.Operation) }

// Updates are the attributes the action changes: its set, its counters
// and its version attribute.
func (a *Action) Updates() []string {
	out := slices.Clone(a.Set)
	for _, c := range a.Add {
		out = append(out, c.Attr)
	}
	if a.Version != "" && a.Kind == ActionUpdate {
		out = append(out, a.Version)
	}
	return out
}

// Operation is the single-item operation an action runs as: PutItem,
// UpdateItem, DeleteItem, ConditionCheck or GetItem.
func (a *Action) Operation() string {
	switch a.Kind {
	case ActionPut:
		return "PutItem"
	case ActionUpdate:
		return "UpdateItem"
	case ActionDelete:
		return "DeleteItem"
	case ActionCheck:
		return "ConditionCheck"
	}
	return "GetItem"
}

// Items is how many items a multi-item pattern's request holds: the sum
// of its actions' counts.
func (p *Pattern) Items() int {
	n := 0
	for _, a := range p.Actions {
		n += a.Count
	}
	return n
}

// Writes are the one-item writes of d's patterns, in file order: each
// write pattern with one item as it is, and each put, update and delete
// of a TransactWriteItems or BatchWriteItem as a pattern of its own (ID
// "like-post action 2", at the action's position, Transaction set in a
// transaction, its rate the request's times the action's count). The
// rules and the analyzer read the write load and the key rewrites of
// every write through it. A ConditionCheck writes nothing.
func (d *Design) Writes() []*Pattern {
	var out []*Pattern
	for _, p := range d.Patterns {
		if p.Kind != "write" {
			continue
		}
		if !p.Multi() {
			out = append(out, p)
			continue
		}
		for i, a := range p.Actions {
			if a.Kind == ActionCheck || a.Kind == ActionGet {
				continue
			}
			n := float64(a.Count)
			out = append(out, &Pattern{
				ID: fmt.Sprintf("%s action %d", p.ID, i+1), Description: p.Description,
				Kind: "write", Operation: a.Operation(), Entity: a.Entity, Updates: a.Updates(),
				Transaction: p.Operation == TransactWriteItems,
				Rate:        Rate{Average: p.Rate.Average * n, Peak: p.Rate.Peak * n},
				Pos:         a.Pos, Action: a,
			})
		}
	}
	return out
}

// RequestBytes is the aggregate size of the items of one request of a
// multi-item pattern, at each entity's typical size (ItemSize): what the
// 4 MB and 16 MB limits bound.
func (d *Design) RequestBytes(p *Pattern) int {
	n := 0
	for _, a := range p.Actions {
		if e := d.Entity(a.Entity); e != nil {
			n += a.Count * d.ItemSize(e)
		}
	}
	return n
}

// multiCost fills the units of one request of a multi-item pattern.
//
// A transaction's puts, updates and deletes cost twice a plain write's
// units for the table, and its ConditionChecks twice the write units of
// the item they read: "two underlying reads or writes of every item"
// (developer guide, "Managing complex workflows with DynamoDB
// transactions", Capacity management for transactions:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling);
// index entries are written once, as outside a transaction, and a
// ConditionCheck is billed as a write (docs/research-capacity.md §3.5,
// measured against DynamoDB). A batch costs what its items would one by
// one, each rounded on its own (BatchGetItem reads eventually consistent
// unless consistent: true).
func (d *Design) multiCost(p *Pattern, pc *PatternCost) {
	byIndex := map[string]float64{}
	var order []string
	add := func(index string, u float64) {
		if _, ok := byIndex[index]; !ok {
			order = append(order, index)
		}
		byIndex[index] += u
	}
	for _, a := range p.Actions {
		e := d.Entity(a.Entity)
		if e == nil {
			continue
		}
		n := float64(a.Count)
		pc.Items += n
		switch a.Kind {
		case ActionGet:
			u := ReadUnits(d.ItemSize(e))
			if p.Consistent {
				u *= 2
			}
			pc.ReadUnits += n * u
		case ActionCheck:
			add("", n*2*WriteUnits(d.ItemSize(e)))
		default:
			one := &Pattern{Kind: "write", Operation: a.Operation(), Entity: a.Entity, Updates: a.Updates(), Transaction: p.Operation == TransactWriteItems}
			var w PatternCost
			w.Operation = one.Operation
			d.writeCost(one, &w)
			for _, iu := range w.Writes {
				add(iu.Index, n*iu.Units)
			}
		}
	}
	for _, index := range order {
		pc.Writes = append(pc.Writes, IndexUnits{index, byIndex[index]})
		pc.WriteUnits += byIndex[index]
	}
}

// actionsSummary renders a multi-item pattern for the worksheet:
// TransactWriteItems: put Like (if absent), update Post (adds LikeCount).
func (p *Pattern) actionsSummary() string {
	s := p.Operation + ":"
	for i, a := range p.Actions {
		if i > 0 {
			s += ","
		}
		s += " " + a.Kind + " " + a.Entity
		if a.Count > 1 {
			s += fmt.Sprintf(" ×%d", a.Count)
		}
		s += a.notes()
	}
	return s
}

// notes renders what an action changes and its conditions for
// summaries: " (sets Title; adds 1 to LikeCount; if absent)", or "".
func (a *Action) notes() string {
	var notes []string
	if len(a.Set) > 0 {
		notes = append(notes, "sets "+strings.Join(a.Set, ", "))
	}
	for _, c := range a.Add {
		notes = append(notes, "adds "+c.By+" to "+c.Attr)
	}
	switch a.Condition {
	case NotExists:
		notes = append(notes, "if absent")
	case Exists:
		notes = append(notes, "if present")
	}
	if a.Version != "" {
		notes = append(notes, "version "+a.Version)
	}
	if len(notes) == 0 {
		return ""
	}
	return " (" + strings.Join(notes, "; ") + ")"
}
