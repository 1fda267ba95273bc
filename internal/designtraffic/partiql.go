package designtraffic

import (
	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/partiql"
)

// keyNames are the key attribute names of the key space a PartiQL
// statement reads: the design's table, or one of its indexes. ok is false
// when the table has no design, the index is not in it, or its key has
// several attributes (PartiQL refuses those: partiqlMultiAttributeIndex.test.ts).
func keyNames(tr *design.Traffic, target partiql.Target) (hash, rng string, ok bool) {
	t := tr.TableDesign(target.Table)
	if t == nil {
		return "", "", false
	}
	pk, sk := t.PartitionKey, t.SortKey
	if target.Index != "" {
		found := false
		for _, ix := range t.Indexes {
			if ix.Name == target.Index {
				pk, sk, found = ix.PartitionKey, ix.SortKey, true
			}
		}
		if !found {
			return "", "", false
		}
	}
	if len(pk) != 1 || len(sk) > 1 {
		return "", "", false
	}
	if len(sk) == 1 {
		rng = sk[0].Name
	}
	return pk[0].Name, rng, true
}

// statementAccesses describes one PartiQL statement as the operations it
// runs as (package engine's ExecuteStatement): a SELECT that fixes the
// partition key is one Query per partition value, with its sort key
// condition when it reads one partition (a GetItem when that is the
// table's full key, as a GetItem pattern declares); any other SELECT a Scan; INSERT
// a PutItem; UPDATE and DELETE an UpdateItem and DeleteItem of the key the
// WHERE names. A statement it cannot describe (an EXISTS condition check,
// a table without a design) gives none.
func statementAccesses(tr *design.Traffic, st partiql.Statement, params []attr.Value) []design.Access {
	switch s := st.(type) {
	case *partiql.Select:
		return selectAccesses(tr, s, params)
	case *partiql.Insert:
		item, err := partiql.Item(s.Value, params)
		if err != nil {
			return nil
		}
		return []design.Access{{Table: s.Into.Table, Operation: "PutItem", Key: scalarTexts(item)}}
	case *partiql.Update:
		return writeAccess(tr, s.Table, s.Where, "UpdateItem", params)
	case *partiql.Delete:
		return writeAccess(tr, s.From, s.Where, "DeleteItem", params)
	}
	return nil
}

func selectAccesses(tr *design.Traffic, s *partiql.Select, params []attr.Value) []design.Access {
	scan := []design.Access{{Table: s.From.Table, Index: s.From.Index, Operation: "Scan"}}
	hash, rng, ok := keyNames(tr, s.From)
	if !ok {
		return scan
	}
	vals, query, err := partiql.PartitionValues(s.Where, hash, params)
	if err != nil || !query {
		return scan
	}
	var sort *design.AccessCond
	if kc, ok := partiql.SortCondition(s.Where, rng); ok && len(vals) == 1 {
		c := design.AccessCond{Attr: rng, Op: map[string]string{"BETWEEN": "between", "BEGINS_WITH": "begins_with"}[kc.Op]}
		if c.Op == "" {
			c.Op = kc.Op
		}
		for _, x := range kc.Values {
			v, err := partiql.Value(x, params)
			if err != nil {
				return scan
			}
			c.Values = append(c.Values, v.Text())
		}
		sort = &c
	}
	op := "Query"
	if s.From.Index == "" && len(vals) == 1 && (rng == "" || sort != nil && sort.Op == "=") {
		// One item by its full key: the read a GetItem pattern declares.
		op = "GetItem"
	}
	var out []design.Access
	for _, v := range vals {
		a := design.Access{Table: s.From.Table, Index: s.From.Index, Operation: op,
			Conds: []design.AccessCond{{Attr: hash, Op: "=", Values: []string{v.Text()}}}}
		if sort != nil {
			a.Conds = append(a.Conds, *sort)
		}
		out = append(out, a)
	}
	return out
}

func writeAccess(tr *design.Traffic, target partiql.Target, where partiql.Expr, op string, params []attr.Value) []design.Access {
	hash, rng, ok := keyNames(tr, partiql.Target{Table: target.Table})
	if !ok {
		return nil
	}
	keys := []string{hash}
	if rng != "" {
		keys = append(keys, rng)
	}
	key, _, full, err := partiql.KeyOf(where, keys, params)
	if err != nil || !full {
		return nil
	}
	return []design.Access{{Table: target.Table, Operation: op, Key: scalarTexts(key)}}
}

// partiqlAccesses describes ExecuteStatement, BatchExecuteStatement and
// ExecuteTransaction requests statement by statement.
func partiqlAccesses(tr *design.Traffic, in any) []design.Access {
	switch in := in.(type) {
	case *api.ExecuteStatementInput:
		return statementAccesses(tr, in.Parsed, in.Params)
	case *api.BatchExecuteStatementInput:
		var out []design.Access
		for _, s := range in.Statements {
			if s.Err == nil {
				out = append(out, statementAccesses(tr, s.Parsed, s.Params)...)
			}
		}
		return out
	case *api.ExecuteTransactionInput:
		var out []design.Access
		for _, s := range in.TransactStatements {
			out = append(out, statementAccesses(tr, s.Parsed, s.Params)...)
		}
		return out
	}
	return nil
}
