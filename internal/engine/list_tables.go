package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
)

// defaultListLimit is ListTables' page size when Limit is absent.
const defaultListLimit = 100

// ListTables lists table names in byte order, a page at a time.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html
func (e *Engine) ListTables(ctx context.Context, in *api.ListTablesInput) (*api.ListTablesOutput, error) {
	limit := defaultListLimit
	if in.Limit != nil {
		limit = int(*in.Limit)
	}
	start := ""
	if in.ExclusiveStartTableName != nil {
		start = *in.ExclusiveStartTableName
	}
	out := &api.ListTablesOutput{TableNames: []string{}}
	err := e.read(ctx, func(tx storage.Txn) error {
		names, more, err := catalog.List(tx, start, limit)
		if err != nil {
			return err
		}
		out.TableNames = append(out.TableNames, names...)
		if more && len(names) > 0 {
			out.LastEvaluatedTableName = names[len(names)-1]
		}
		return nil
	})
	return out, err
}
