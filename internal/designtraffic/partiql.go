package designtraffic

import (
	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/design"
)

// partiqlAccesses describes ExecuteStatement, BatchExecuteStatement and
// ExecuteTransaction requests statement by statement, each as the
// operations it runs as, read against its table's design
// (design.Traffic.StatementAccesses). A batch's statement that failed its
// own checks (answered with its Error) made no access.
func partiqlAccesses(tr *design.Traffic, in any) []design.Access {
	switch in := in.(type) {
	case *api.ExecuteStatementInput:
		return tr.StatementAccesses(in.Parsed, in.Params)
	case *api.BatchExecuteStatementInput:
		var out []design.Access
		for _, s := range in.Statements {
			if s.Err == nil {
				out = append(out, tr.StatementAccesses(s.Parsed, s.Params)...)
			}
		}
		return out
	case *api.ExecuteTransactionInput:
		var out []design.Access
		for _, s := range in.TransactStatements {
			out = append(out, tr.StatementAccesses(s.Parsed, s.Params)...)
		}
		return out
	}
	return nil
}
