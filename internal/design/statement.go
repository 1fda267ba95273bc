package design

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/partiql"
)

// PartiQL statements read against a design's key schema: which operation a
// statement is, on which index, under which key conditions. Two callers
// share it: serve --design, classifying ExecuteStatement traffic (values
// from the statement's parameters), and patterns written as statements in
// a design file (values as templates in string literals, 'USER#<UserId>').
//
// The rules are DynamoDB's (developer guide, "PartiQL select statements",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html):
// a SELECT whose WHERE fixes the partition key with = or IN runs as a
// Query (one per partition value), anything else as a Scan; INSERT is a
// PutItem, UPDATE an UpdateItem and DELETE a DeleteItem of the item whose
// whole primary key the statement names.

// stmtCond is one key condition a statement puts on a key attribute.
type stmtCond struct {
	attr, op string // op: =, <, <=, >, >=, between, begins_with
	values   []attr.Value
}

// stmtRead is a SELECT read against a key schema.
type stmtRead struct {
	index string
	scan  bool
	// parts holds, per partition read, its partition key conditions (one
	// partition per value an IN or OR lists); sort the sort key
	// conditions, when one partition is read.
	parts [][]stmtCond
	sort  []stmtCond
	desc  bool
}

// keyOps maps package partiql's sort key operators to a design's.
var keyOps = map[string]string{"=": "=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "BETWEEN": "between", "BEGINS_WITH": "begins_with"}

// StatementTable returns the table a statement reads or writes ("" for an
// expression statement).
func StatementTable(st partiql.Statement) string {
	switch s := st.(type) {
	case *partiql.Select:
		return s.From.Table
	case *partiql.Insert:
		return s.Into.Table
	case *partiql.Update:
		return s.Table.Table
	case *partiql.Delete:
		return s.From.Table
	case *partiql.Exists:
		return s.Select.From.Table
	}
	return ""
}

// readOfSelect reads st against d's key schema. params are the statement's
// parameters (nil for a pattern, whose values are literals); the error is
// a parameter the statement lacks or a value package partiql refuses.
func (d *Design) readOfSelect(st *partiql.Select, params []attr.Value) (stmtRead, error) {
	r := stmtRead{index: st.From.Index, desc: len(st.OrderBy) > 0 && st.OrderBy[0].Desc}
	pk, sk, ok := d.KeySchema(st.From.Index)
	if !ok {
		return r, fmt.Errorf("the table has no index %s", st.From.Index)
	}
	if len(pk) == 0 {
		return r, fmt.Errorf("the design's table has no partition key")
	}
	if len(pk) == 1 {
		vals, fixed, err := partiql.PartitionValues(st.Where, pk[0].Name, params)
		if err != nil || !fixed {
			r.scan = err == nil
			return r, err
		}
		for _, v := range vals {
			r.parts = append(r.parts, []stmtCond{{attr: pk[0].Name, op: "=", values: []attr.Value{v}}})
		}
	} else {
		// A multi-attribute partition key is fixed by an equality on each
		// of its attributes in a WHERE of one branch.
		var part []stmtCond
		if st.Where != nil && len(partiql.Branches(st.Where)) == 1 {
			for _, ka := range pk {
				if c, ok := equality(st.Where, ka.Name, params); ok {
					part = append(part, c)
				}
			}
		}
		if len(part) < len(pk) {
			r.scan = true
			return r, nil
		}
		r.parts = [][]stmtCond{part}
	}
	if len(r.parts) != 1 {
		return r, nil
	}
	// The sort key: equalities on its leading attributes, then at most one
	// range condition (DynamoDB's key condition rules).
	for _, ka := range sk {
		kc, ok := partiql.SortCondition(st.Where, ka.Name)
		if !ok {
			break
		}
		c := stmtCond{attr: ka.Name, op: keyOps[kc.Op]}
		for _, x := range kc.Values {
			v, err := partiql.Value(x, params)
			if err != nil {
				return r, err
			}
			c.values = append(c.values, v)
		}
		r.sort = append(r.sort, c)
		if c.op != "=" {
			break
		}
	}
	return r, nil
}

// filterConjuncts returns the top-level conditions of a one-partition
// SELECT's WHERE that are no part of its key condition: what a Query
// would apply as a filter after reading.
func (d *Design) filterConjuncts(st *partiql.Select) []partiql.Expr {
	pk, sk, _ := d.KeySchema(st.From.Index)
	usedPK, usedSK := map[string]bool{}, map[string]bool{}
	var extra []partiql.Expr
	for _, c := range partiql.Conjuncts(st.Where) {
		used := false
		for _, ka := range pk {
			if _, ok := partiql.Equality(c, ka.Name); ok && !usedPK[ka.Name] {
				usedPK[ka.Name], used = true, true
				break
			}
		}
		for _, ka := range sk {
			if used {
				break
			}
			if _, ok := partiql.SortCondition(c, ka.Name); ok && !usedSK[ka.Name] {
				usedSK[ka.Name], used = true, true
			}
		}
		if !used {
			extra = append(extra, c)
		}
	}
	return extra
}

// equality finds a top-level conjunct name = constant in where.
func equality(where partiql.Expr, name string, params []attr.Value) (stmtCond, bool) {
	for _, c := range partiql.Conjuncts(where) {
		if x, ok := partiql.Equality(c, name); ok {
			if v, err := partiql.Value(x, params); err == nil {
				return stmtCond{attr: name, op: "=", values: []attr.Value{v}}, true
			}
		}
	}
	return stmtCond{}, false
}

// getItem reports whether conds fix the table's whole primary key with =,
// which makes a read on the table a GetItem.
func (d *Design) getItem(index string, conds []stmtCond) bool {
	if index != "" {
		return false
	}
	keys := slices.Concat(d.Table.PartitionKey, d.Table.SortKey)
	if len(conds) != len(keys) {
		return false
	}
	for _, ka := range keys {
		if !slices.ContainsFunc(conds, func(c stmtCond) bool { return c.attr == ka.Name && c.op == "=" }) {
			return false
		}
	}
	return true
}

// StatementAccesses describes a PartiQL statement on d's table (parsed by
// package partiql, with its checked parameters) as the accesses it makes:
// a SELECT that fixes the partition key is a GetItem (the whole table key
// with =) or a Query per partition value, any other SELECT a Scan; INSERT
// a PutItem, UPDATE an UpdateItem, DELETE a DeleteItem, with the key the
// statement names. It returns nil for a statement it cannot read (one the
// engine refuses, whose error the client gets) and for EXISTS, a
// transaction's condition check, which serve --design does not classify
// (as for TransactWriteItems' ConditionCheck).
func (d *Design) StatementAccesses(st partiql.Statement, params []attr.Value) []Access {
	table := d.Table.Name
	write := func(op string, key attr.Item) []Access {
		if key == nil {
			return nil
		}
		return []Access{{Table: table, Operation: op, Key: ScalarTexts(key)}}
	}
	keyNames := func() []string {
		var names []string
		for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
			names = append(names, ka.Name)
		}
		return names
	}
	switch s := st.(type) {
	case *partiql.Select:
		r, err := d.readOfSelect(s, params)
		if err != nil {
			return nil
		}
		if r.scan {
			return []Access{{Table: table, Index: r.index, Operation: "Scan"}}
		}
		var out []Access
		for _, part := range r.parts {
			conds := slices.Concat(part, r.sort)
			a := Access{Table: table, Index: r.index, Operation: "Query"}
			if d.getItem(r.index, conds) {
				a.Operation = "GetItem"
			}
			for _, c := range conds {
				ac := AccessCond{Attr: c.attr, Op: c.op}
				for _, v := range c.values {
					ac.Values = append(ac.Values, v.Text())
				}
				a.Conds = append(a.Conds, ac)
			}
			out = append(out, a)
		}
		return out
	case *partiql.Insert:
		item, err := partiql.Item(s.Value, params)
		if err != nil {
			return nil
		}
		return write("PutItem", item)
	case *partiql.Update:
		key, _, ok, err := partiql.KeyOf(s.Where, keyNames(), params)
		if err != nil || !ok {
			return nil
		}
		return write("UpdateItem", key)
	case *partiql.Delete:
		key, _, ok, err := partiql.KeyOf(s.Where, keyNames(), params)
		if err != nil || !ok {
			return nil
		}
		return write("DeleteItem", key)
	}
	return nil
}

// ScalarTexts is an item's scalar (S, N, B) attributes as text, attribute
// name to value: the form of an Access's Key (key attributes are
// scalars).
func ScalarTexts(it attr.Item) map[string]string {
	m := make(map[string]string, len(it))
	for name, v := range it {
		switch v.Kind() {
		case attr.S, attr.N, attr.B:
			m[name] = v.Text()
		}
	}
	return m
}

// fromStatement fills pattern pt from its PartiQL statement (a design
// file's partiql:), read against d's table: kind, operation, index, key
// conditions (each value a template in a string literal), order, the
// attributes a SELECT projects (Needs) and an UPDATE sets (Updates).
func (d *Design) fromStatement(pt *Pattern, st partiql.Statement) error {
	if t := StatementTable(st); t != d.Table.Name {
		return fmt.Errorf("the statement names table %q; the design's table is %q", t, d.Table.Name)
	}
	if partiql.ParamCount(st) > 0 {
		return fmt.Errorf("write the values as templates in quotes ('USER#<UserId>'), not ?: a pattern's statement has no parameters")
	}
	switch s := st.(type) {
	case *partiql.Select:
		pt.Kind = "read"
		r, err := d.readOfSelect(s, nil)
		if err != nil {
			return err
		}
		pt.Index = r.index
		if r.scan {
			pt.Operation = "Scan"
			return nil
		}
		if len(r.parts) > 1 {
			return fmt.Errorf("the statement reads %d partitions (IN or OR on the partition key): a pattern reads one; write one pattern for each", len(r.parts))
		}
		if extra := d.filterConjuncts(s); len(extra) > 0 {
			return fmt.Errorf("%s is not a key condition: a pattern reads by key, and DynamoDB would read every item the key selects and then filter them, paying for all of them; leave it out of the pattern, or key an index by what it tests", extra[0])
		}
		conds := slices.Concat(r.parts[0], r.sort)
		var texts []string
		for _, c := range conds {
			dc := Condition{Attr: c.attr, Op: c.op}
			for _, v := range c.values {
				t, err := ParseTemplate(v.Text())
				if err != nil {
					return err
				}
				dc.Values = append(dc.Values, t)
			}
			pt.Conditions = append(pt.Conditions, dc)
			texts = append(texts, dc.String())
		}
		pt.KeyCondition = strings.Join(texts, " AND ")
		if r.desc {
			pt.Order = "descending"
		}
		for _, x := range s.Projection {
			if p, ok := partiql.Unparen(x).(*partiql.Path); ok && !slices.Contains(pt.Needs, p.Elems[0].Name) {
				pt.Needs = append(pt.Needs, p.Elems[0].Name)
			}
		}
		return nil
	case *partiql.Insert:
		pt.Kind, pt.Operation = "write", "PutItem"
	case *partiql.Update:
		pt.Kind, pt.Operation = "write", "UpdateItem"
		for _, a := range s.Actions {
			if !slices.Contains(pt.Updates, a.Path.Elems[0].Name) {
				pt.Updates = append(pt.Updates, a.Path.Elems[0].Name)
			}
		}
	case *partiql.Delete:
		pt.Kind, pt.Operation = "write", "DeleteItem"
	default:
		return fmt.Errorf("a pattern's statement is a SELECT, INSERT, UPDATE or DELETE")
	}
	return nil
}
