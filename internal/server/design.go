package server

import (
	"encoding/json"
	"net/http"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/expr"
)

// Live traffic against designs (serve --design): every data-plane request
// on a table with a design is classified as one of its access patterns or
// as an undeclared path, counted for GET /design/traffic and the
// dynago_design_* metrics.

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
		for _, t := range in.TransactItems {
			switch {
			case t.Put != nil:
				out = append(out, accesses(t.Put)...)
			case t.Update != nil:
				out = append(out, accesses(t.Update)...)
			case t.Delete != nil:
				out = append(out, accesses(t.Delete)...)
			}
		}
		return out
	}
	return nil
}

// checkDesign refuses, with --design-strict, a Scan that no pattern of
// its table's design declares: as an IAM policy that denies dynamodb:Scan
// would, with AccessDeniedException.
func (s *Server) checkDesign(in any) error {
	if _, scan := in.(*api.ScanInput); !scan {
		return nil // only a Scan is refused; recordDesign classifies the rest
	}
	a := accesses(in)[0]
	if !s.traffic.Has(a.Table) {
		return nil
	}
	if _, _, declared := s.traffic.Classify(a); declared {
		return nil
	}
	_, path, _ := s.traffic.Record(a)
	s.metrics.designRequest(a.Table, path, false, 0, 0)
	return ddberr.New(ddberr.AccessDeniedException, "dynago --design-strict: the design of table "+a.Table+" declares no Scan"+onIndex(a.Index)+": add an access pattern, or query by key")
}

func onIndex(name string) string {
	if name == "" {
		return ""
	}
	return " on index " + name
}

// recordDesign counts a valid request that ran, failed or not: each item
// of a batch or transaction as its own access.
func (s *Server) recordDesign(in any, out output, failed bool) {
	for _, a := range accesses(in) {
		if !s.traffic.Has(a.Table) {
			continue
		}
		a.Failed = failed
		if ro, isRead := out.(*api.ReadOutput); isRead && ro != nil && !failed {
			a.Count, a.Scanned = ro.Count, ro.ScannedCount
		}
		pattern, path, declared := s.traffic.Record(a)
		if !declared {
			pattern = path
		}
		s.metrics.designRequest(a.Table, pattern, declared, a.Count, a.Scanned)
	}
}

// designTraffic answers GET /design/traffic[?table=T]: the traffic report
// as JSON.
func (s *Server) designTraffic(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.traffic == nil {
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"error": "no design attached: start the server with --design FILE"})
		return
	}
	rep := s.traffic.Report()
	if t := r.URL.Query().Get("table"); t != "" {
		var one []design.TableTraffic
		for _, tt := range rep {
			if tt.Table == t {
				one = append(one, tt)
			}
		}
		if one == nil {
			w.WriteHeader(http.StatusNotFound)
			json.NewEncoder(w).Encode(map[string]string{"error": "no design for table " + t})
			return
		}
		rep = one
	}
	json.NewEncoder(w).Encode(map[string]any{"tables": rep})
}
