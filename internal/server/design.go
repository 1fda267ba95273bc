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

// access describes a validated input for the classifier; ok is false for
// operations it does not classify (batches, transactions, control plane).
func access(in any) (a design.Access, ok bool) {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	switch in := in.(type) {
	case *api.GetItemInput:
		a = design.Access{Table: str(in.TableName), Operation: "GetItem"}
		for name, v := range scalarTexts(in.Key) {
			a.Conds = append(a.Conds, design.AccessCond{Attr: name, Op: "=", Values: []string{v}})
		}
	case *api.QueryInput:
		a = design.Access{Table: str(in.TableName), Index: str(in.IndexName), Operation: "Query"}
		for _, c := range in.KeyConds {
			ac := design.AccessCond{Attr: c.Name, Op: keyOps[c.Op]}
			for _, v := range c.Values {
				ac.Values = append(ac.Values, v.Text())
			}
			a.Conds = append(a.Conds, ac)
		}
	case *api.ScanInput:
		a = design.Access{Table: str(in.TableName), Index: str(in.IndexName), Operation: "Scan"}
	case *api.PutItemInput:
		a = design.Access{Table: str(in.TableName), Operation: "PutItem", Key: scalarTexts(in.Item)}
	case *api.UpdateItemInput:
		a = design.Access{Table: str(in.TableName), Operation: "UpdateItem", Key: scalarTexts(in.Key)}
	case *api.DeleteItemInput:
		a = design.Access{Table: str(in.TableName), Operation: "DeleteItem", Key: scalarTexts(in.Key)}
	default:
		return a, false
	}
	return a, true
}

// checkDesign refuses, with --design-strict, a Scan that no pattern of
// its table's design declares: as an IAM policy that denies dynamodb:Scan
// would, with AccessDeniedException.
func (s *Server) checkDesign(in any) error {
	a, ok := access(in)
	if !ok || a.Operation != "Scan" || !s.traffic.Has(a.Table) {
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

// recordDesign counts a valid request that ran, failed or not.
func (s *Server) recordDesign(in any, out output, failed bool) {
	a, ok := access(in)
	if !ok || !s.traffic.Has(a.Table) {
		return
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
