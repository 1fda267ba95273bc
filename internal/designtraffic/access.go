package designtraffic

import (
	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/expr"
)

// keyOps names key condition operators as design files write them.
var keyOps = map[expr.KeyOp]string{
	expr.KeyEQ: "=", expr.KeyLT: "<", expr.KeyLE: "<=", expr.KeyGT: ">", expr.KeyGE: ">=",
	expr.KeyBetween: "between", expr.KeyBeginsWith: "begins_with",
}

// scalarTexts is an item's scalar attributes as text (keys are scalars).
func scalarTexts(it attr.Item) map[string]string {
	m := make(map[string]string, len(it))
	for name, v := range it {
		switch v.Kind() {
		case attr.S, attr.N, attr.B:
			m[name] = v.Text()
		}
	}
	return m
}

// accesses describes a prepared input for the classifier: one Access per
// item a batch or transaction touches (its sub-requests classified as
// GetItem, PutItem, UpdateItem, DeleteItem), and a PartiQL statement as
// the operation it runs as, read against its table's design in t; nil for
// what it does not classify (control plane, streams, a ConditionCheck).
func accesses(t *design.Traffic, in any) []design.Access {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	get := func(table string, key attr.Item) design.Access {
		a := design.Access{Table: table, Operation: "GetItem"}
		for name, v := range scalarTexts(key) {
			a.Conds = append(a.Conds, design.AccessCond{Attr: name, Op: "=", Values: []string{v}})
		}
		return a
	}
	switch in := in.(type) {
	case *api.GetItemInput:
		return []design.Access{get(str(in.TableName), in.Key)}
	case *api.QueryInput:
		a := design.Access{Table: str(in.TableName), Index: str(in.IndexName), Operation: "Query"}
		for _, c := range in.KeyConds {
			ac := design.AccessCond{Attr: c.Name, Op: keyOps[c.Op]}
			for _, v := range c.Values {
				ac.Values = append(ac.Values, v.Text())
			}
			a.Conds = append(a.Conds, ac)
		}
		return []design.Access{a}
	case *api.ScanInput:
		return []design.Access{{Table: str(in.TableName), Index: str(in.IndexName), Operation: "Scan"}}
	case *api.ExecuteStatementInput:
		return t.StatementAccesses(in.Parsed, in.Params)
	case *api.PutItemInput:
		return []design.Access{{Table: str(in.TableName), Operation: "PutItem", Key: scalarTexts(in.Item)}}
	case *api.UpdateItemInput:
		return []design.Access{{Table: str(in.TableName), Operation: "UpdateItem", Key: scalarTexts(in.Key)}}
	case *api.DeleteItemInput:
		return []design.Access{{Table: str(in.TableName), Operation: "DeleteItem", Key: scalarTexts(in.Key)}}
	case *api.BatchGetItemInput:
		var out []design.Access
		for _, table := range in.Tables {
			for _, key := range in.RequestItems[table].Keys {
				out = append(out, get(table, key))
			}
		}
		return out
	case *api.BatchWriteItemInput:
		var out []design.Access
		for _, table := range in.Tables {
			for _, w := range in.RequestItems[table] {
				if w.HasPut {
					out = append(out, design.Access{Table: table, Operation: "PutItem", Key: scalarTexts(w.Put)})
				} else {
					out = append(out, design.Access{Table: table, Operation: "DeleteItem", Key: scalarTexts(w.Delete)})
				}
			}
		}
		return out
	case *api.TransactGetItemsInput:
		var out []design.Access
		for _, g := range in.Gets {
			out = append(out, get(str(g.TableName), g.Key))
		}
		return out
	case *api.TransactWriteItemsInput:
		var out []design.Access
		for _, ti := range in.TransactItems {
			switch {
			case ti.Put != nil:
				out = append(out, accesses(t, ti.Put)...)
			case ti.Update != nil:
				out = append(out, accesses(t, ti.Update)...)
			case ti.Delete != nil:
				out = append(out, accesses(t, ti.Delete)...)
			}
		}
		return out
	}
	return nil
}
