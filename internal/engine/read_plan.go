package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/storage"
)

// readPlan resolves the key space a Query or Scan reads: the table, or
// the index named by IndexName, applying DynamoDB's index rules in its
// order: the index exists, a GSI is readable (not backfilling) and not
// read consistently, Select fits the projection, and a GSI is asked only
// for attributes it projects. On an LSI, attributes it does not project
// are fetched from the table (fetch is set).
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Reading,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.Projections;
// messages in docs/research-indexes.md §3.
func (e *Engine) readPlan(t *catalog.Table, rr *api.ReadRequest) (*keyPlan, error) {
	if rr.IndexName == nil {
		return tablePlan(t), nil
	}
	ix := t.Index(*rr.IndexName)
	if ix == nil {
		return nil, ddberr.Validation("The table does not have the specified index: " + *rr.IndexName)
	}
	p := indexPlan(t, ix)
	if !ix.Local {
		if ix.Status(e.opts.Now()) != catalog.IndexActive {
			return nil, ddberr.Validation("Cannot read from backfilling global secondary index: " + ix.Name)
		}
		if rr.IsConsistent() {
			return nil, ddberr.Validation("Consistent reads are not supported on global secondary indexes")
		}
	}
	all := ix.Projection == catalog.ProjectAll
	switch rr.SelectValue() {
	case "ALL_ATTRIBUTES":
		if !all {
			if !ix.Local {
				return nil, ddberr.InvalidParam("Select type ALL_ATTRIBUTES is not supported for global secondary index " +
					ix.Name + " because its projection type is not ALL")
			}
			p.fetch = true
		}
	case "SPECIFIC_ATTRIBUTES":
		if missing := unprojected(t, ix, rr.Projection); len(missing) > 0 {
			if !ix.Local {
				return nil, ddberr.InvalidParam("Global secondary index " + ix.Name + " does not project [" + strings.Join(missing, ", ") + "]")
			}
			p.fetch = true
		}
	}
	if rr.Filter != nil && !all {
		var missing []string
		expr.Walk(rr.Filter, func(x expr.Expr) {
			if path, ok := x.(*expr.Path); ok && !projects(t, ix, path.Elems[0].Name) && !slices.Contains(missing, path.Elems[0].Name) {
				missing = append(missing, path.Elems[0].Name)
			}
		})
		if len(missing) > 0 {
			if !ix.Local {
				return nil, ddberr.InvalidParam("Secondary index " + ix.Name + " does not project one or more filter attributes: [" + strings.Join(missing, ", ") + "]")
			}
			p.fetch = true
		}
	}
	return p, nil
}

// unprojected returns the top-level attributes of a projection that ix
// does not hold, in order of first mention.
func unprojected(t *catalog.Table, ix *catalog.Index, paths []*expr.Path) []string {
	var missing []string
	for _, path := range paths {
		n := path.Elems[0].Name
		if !projects(t, ix, n) && !slices.Contains(missing, n) {
			missing = append(missing, n)
		}
	}
	return missing
}

// checkQueryFilter rejects a Query filter that names a key attribute of
// the key space queried: the key condition is the only place for those.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html
// ("A filter expression cannot contain partition key or sort key
// attributes"); the messages are DynamoDB's.
func checkQueryFilter(p *keyPlan, rr *api.ReadRequest) error {
	if rr.Filter == nil {
		return nil
	}
	if rr.LegacyFilter != nil {
		for _, name := range slices.Sorted(maps.Keys(rr.LegacyFilter)) {
			if p.isKey(name) {
				return ddberr.Validation("QueryFilter can only contain non-primary key attributes: Primary key attribute: " + name)
			}
		}
		return nil
	}
	var key string
	expr.Walk(rr.Filter, func(x expr.Expr) {
		if path, ok := x.(*expr.Path); ok && key == "" && p.isKey(path.Elems[0].Name) {
			key = path.Elems[0].Name
		}
	})
	if key != "" {
		return ddberr.Validation("Filter Expression can only contain non-primary key attributes: Primary key attribute: " + key)
	}
	return nil
}

// startKey validates an ExclusiveStartKey against the key space (the
// table's key attributes, plus the index's for an index) and returns its
// storage key.
func startKey(p *keyPlan, esk attr.Item) ([]byte, error) {
	t := p.table
	invalid := func(err error) error {
		if e, ok := ddberr.As(err); ok && e.Code == ddberr.ValidationException {
			return ddberr.Validation("The provided starting key is invalid: " + strings.TrimPrefix(e.Message, "One or more parameter values were invalid: "))
		}
		return err
	}
	if p.index == nil {
		k, err := extractKey(t, esk, keyOfKey)
		if err != nil {
			return nil, invalid(err)
		}
		return storageKey(t, k), nil
	}
	names := p.keyNames()
	if len(esk) != len(names) {
		return nil, invalid(ddberr.KeySchemaMismatch())
	}
	tableOnly := make(attr.Item, len(t.KeySchema))
	for _, k := range t.KeySchema {
		if v, ok := esk[k.AttributeName]; ok {
			tableOnly[k.AttributeName] = v
		}
	}
	tk, err := extractKey(t, tableOnly, keyOfKey)
	if err != nil {
		return nil, invalid(err)
	}
	vals, ok, err := indexKeyValues(t, p.index, esk, false)
	if err != nil {
		return nil, invalid(err)
	}
	if !ok {
		return nil, invalid(ddberr.KeySchemaMismatch())
	}
	return indexEntryKey(t, p.index, vals, tk), nil
}

// fetchItem reads the table item an LSI entry (its projected item JSON)
// stands for, for reads that need attributes the index does not project.
// It returns the item's JSON and size; ok is false if the item is gone.
func fetchItem(tx storage.Txn, t *catalog.Table, entryJSON []byte) (js []byte, size int, ok bool, err error) {
	entry, err := attr.DecodeItem(entryJSON)
	if err != nil {
		return nil, 0, false, err
	}
	v, err := readVersion(tx, storageKey(t, itemTableKey(t, entry)), false)
	if err != nil || !v.exists {
		return nil, 0, false, err
	}
	return v.json, v.size, true, nil
}
