package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/storage"
)

// defaultListLimit is ListTables' page size when Limit is absent.
const defaultListLimit = 100

// allTables returns every table's descriptor, by name.
func (e *Engine) allTables(ctx context.Context) ([]*catalog.Table, error) {
	var tables []*catalog.Table
	err := e.read(ctx, func(tx storage.Txn) error {
		names, _, err := catalog.List(tx, "", 0)
		if err != nil {
			return err
		}
		for _, n := range names {
			t, err := e.lookup(tx, n)
			if err != nil {
				return err
			}
			tables = append(tables, t)
		}
		return nil
	})
	return tables, err
}

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
