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

// accesses describes a prepared input for the classifier: one Access per
// item a batch or transaction touches (its sub-requests classified as
// GetItem, PutItem, UpdateItem, DeleteItem); nil for what it does not
// classify (control plane, streams, a ConditionCheck).
func accesses(in any) []design.Access {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	get := func(table string, key attr.Item) design.Access {
		a := design.Access{Table: table, Operation: "GetItem"}
		for name, v := range design.ScalarTexts(key) {
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
	case *api.PutItemInput:
		return []design.Access{{Table: str(in.TableName), Operation: "PutItem", Key: design.ScalarTexts(in.Item)}}
	case *api.UpdateItemInput:
		return []design.Access{{Table: str(in.TableName), Operation: "UpdateItem", Key: design.ScalarTexts(in.Key)}}
	case *api.DeleteItemInput:
		return []design.Access{{Table: str(in.TableName), Operation: "DeleteItem", Key: design.ScalarTexts(in.Key)}}
	case *api.BatchGetItemInput:
		var out []design.Access
		for _, table := range in.Tables {
			for _, key := range in.RequestItems[table].Keys {
				a := get(table, key)
				a.Via = design.BatchGetItem
				out = append(out, a)
			}
		}
		return out
	case *api.BatchWriteItemInput:
		var out []design.Access
		for _, table := range in.Tables {
			for _, w := range in.RequestItems[table] {
				if w.HasPut {
					out = append(out, design.Access{Table: table, Operation: "PutItem", Key: design.ScalarTexts(w.Put), Via: design.BatchWriteItem})
				} else {
					out = append(out, design.Access{Table: table, Operation: "DeleteItem", Key: design.ScalarTexts(w.Delete), Via: design.BatchWriteItem})
				}
			}
		}
		return out
	case *api.TransactGetItemsInput:
		var out []design.Access
		for _, g := range in.Gets {
			a := get(str(g.TableName), g.Key)
			a.Via = "TransactGetItems"
			out = append(out, a)
		}
		return out
	case *api.TransactWriteItemsInput:
		var out []design.Access
		for _, t := range in.TransactItems {
			var one []design.Access
			switch {
			case t.Put != nil:
				one = accesses(t.Put)
			case t.Update != nil:
				one = accesses(t.Update)
			case t.Delete != nil:
				one = accesses(t.Delete)
			}
			for _, a := range one {
				a.Via = design.TransactWriteItems
				out = append(out, a)
			}
		}
		return out
	}
	return nil
}
