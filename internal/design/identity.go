package design

import (
	"slices"
	"strings"
)

// Identity: which entity a key variable identifies, and so which reads
// find one item. The sample data (package sample) gives each entity's
// own variables a value per item and takes the others from the items of
// their owners, and dynago design run fails a read expected to return
// one item that returns more.
//
// This differs from Cardinality's parent, which needs the workload's
// item counts: ownership is read from the keys alone, so that a design
// without a workload section still gets realistic data.

// Owner returns the entity that has one item per value of variable v,
// or nil: the entity whose table key is built from v alone (Customer,
// PK = CUSTOMER#<customerId>, SK = PROFILE); else the one named for it
// (Order for orderId, OrderId or order_id); else the one whose table key
// holds v and, besides it, only variables the first two rules give to
// other entities (Product, CATEGORY#<CategoryName> and
// PRODUCT#<ProductName>, owns ProductName). Ties go to the first entity
// in the file.
func (d *Design) Owner(v string) *Entity {
	if v == "" || v == "shard" {
		return nil
	}
	if e := d.directOwner(v); e != nil {
		return e
	}
	for _, e := range d.Entities {
		vars := d.tableKeyVars(e)
		if !slices.Contains(vars, v) {
			continue
		}
		rest := slices.DeleteFunc(slices.Clone(vars), func(x string) bool {
			o := d.directOwner(x)
			return x == v || (o != nil && o != e)
		})
		if len(rest) == 0 {
			return e
		}
	}
	return nil
}

// directOwner is Owner's first two rules: a table key of v alone, or an
// entity named for v.
func (d *Design) directOwner(v string) *Entity {
	for _, e := range d.Entities {
		if vars := d.tableKeyVars(e); len(vars) == 1 && vars[0] == v {
			return e
		}
	}
	id := strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(v))
	for _, e := range d.Entities {
		if e.Attribute(v) != nil && id == strings.ToLower(e.Name)+"id" {
			return e
		}
	}
	return nil
}

// tableKeyVars are the variables of e's table key templates, each once,
// in key order, <shard> left out.
func (d *Design) tableKeyVars(e *Entity) []string {
	var vars []string
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		t, _, _, _ := e.ValueOf(ka.Name)
		for _, v := range t.Vars() {
			if v != "shard" && !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
	}
	return vars
}

// Identity is what tells e's items apart: the variables e owns (Owner),
// else, for an entity that owns none (a Like of a user and a post), every
// variable of its table key.
func (d *Design) Identity(e *Entity) []string {
	vars := d.tableKeyVars(e)
	var own []string
	for _, v := range vars {
		if d.Owner(v) == e {
			own = append(own, v)
		}
	}
	if len(own) > 0 {
		return own
	}
	return vars
}

// ExpectsOne reports whether read p should find at most one item: it
// says so (expects: one; expects: many says it does not), or it is a
// GetItem, or it returns one entity type and its key binds that entity's
// whole Identity with = (GSI1PK = ORDER#<orderId> for an Order that owns
// orderId). The variables bound are returned, for a message.
func (d *Design) ExpectsOne(p *Pattern) (bool, []string) {
	switch {
	case p.Expects == "one":
		return true, nil
	case p.Expects == "many" || p.Kind == "write" || p.Operation == "Scan":
		return false, nil
	case d.Operation(p) == "GetItem":
		return true, nil
	case len(p.Returns) != 1:
		return false, nil
	}
	e := d.Entity(p.Returns[0])
	if e == nil {
		return false, nil
	}
	var bound []string
	for _, c := range p.Conditions {
		if c.Op == "=" && len(c.Values) == 1 {
			bound = append(bound, c.Values[0].Vars()...)
		}
	}
	id := d.Identity(e)
	if len(id) == 0 {
		return false, nil
	}
	for _, v := range id {
		if !slices.Contains(bound, v) {
			return false, nil
		}
	}
	return true, id
}
