package engine

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// Query reads one item collection in sort-key order, a page at a time.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
func (e *Engine) Query(ctx context.Context, in *api.QueryInput) (*api.ReadOutput, error) {
	var out *api.ReadOutput
	err := e.read(ctx, func(tx storage.Txn) error {
		t, err := e.activeTable(tx, *in.TableName)
		if err != nil {
			return err
		}
		if in.IndexName != nil {
			return ddberr.Validation("The table does not have the specified index: " + *in.IndexName)
		}
		lo, hi, err := keyRange(t, in.KeyConds)
		if err != nil {
			return err
		}
		if err := checkQueryFilter(t, &in.ReadRequest); err != nil {
			return err
		}
		forward := in.Forward()
		if in.ExclusiveStartKey != nil {
			start, err := startKey(t, in.ExclusiveStartKey)
			if err != nil {
				return err
			}
			if bytes.Compare(start, lo) < 0 || (hi != nil && bytes.Compare(start, hi) >= 0) {
				return ddberr.Validation("The provided starting key does not match the range key predicate")
			}
			lo, hi = resume(lo, hi, start, forward)
		}
		p := newPage(t, &in.ReadRequest)
		it, err := tx.Scan(lo, hi, !forward)
		if err != nil {
			return err
		}
		if err := p.run(it); err != nil {
			return err
		}
		p.out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, readUnits(p.readBytes, in.IsConsistent()), 0)
		out = p.out
		return nil
	})
	return out, err
}

// checkQueryFilter rejects a Query filter that names a key attribute:
// the key condition is the only place for those.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html
// ("A filter expression cannot contain partition key or sort key
// attributes"); the messages are DynamoDB's.
func checkQueryFilter(t *catalog.Table, rr *api.ReadRequest) error {
	if rr.Filter == nil {
		return nil
	}
	hashName, _ := t.HashKey()
	rangeName, _, hasRange := t.RangeKey()
	isKey := func(name string) bool { return name == hashName || (hasRange && name == rangeName) }
	if rr.LegacyFilter != nil {
		for _, name := range slices.Sorted(maps.Keys(rr.LegacyFilter)) {
			if isKey(name) {
				return ddberr.Validation("QueryFilter can only contain non-primary key attributes: Primary key attribute: " + name)
			}
		}
		return nil
	}
	var key string
	expr.Walk(rr.Filter, func(e expr.Expr) {
		if p, ok := e.(*expr.Path); ok && key == "" && isKey(p.Elems[0].Name) {
			key = p.Elems[0].Name
		}
	})
	if key != "" {
		return ddberr.Validation("Filter Expression can only contain non-primary key attributes: Primary key attribute: " + key)
	}
	return nil
}

// keyRange checks key conditions against the table's key schema and
// returns the storage key range they select.
func keyRange(t *catalog.Table, conds []expr.KeyCond) (lo, hi []byte, err error) {
	hashName, hashKind := t.HashKey()
	rangeName, rangeKind, hasRange := t.RangeKey()
	if len(conds) > len(t.KeySchema) {
		return nil, nil, ddberr.Validation("The number of query conditions (" + strconv.Itoa(len(conds)) +
			") exceeds the number of key attributes defined in the schema (" + strconv.Itoa(len(t.KeySchema)) + ")")
	}
	var hash, sort *expr.KeyCond
	for i := range conds {
		switch c := &conds[i]; c.Name {
		case hashName:
			hash = c
		case rangeName:
			if hasRange {
				sort = c
			}
		}
	}
	if hash == nil {
		return nil, nil, ddberr.Validation("Query condition missed key schema element: " + hashName)
	}
	if len(conds) == 2 && sort == nil {
		return nil, nil, ddberr.Validation("Query condition missed key schema element: " + rangeName)
	}
	if hash.Op != expr.KeyEQ {
		return nil, nil, ddberr.Validation("Query key condition not supported")
	}
	if hash.Values[0].Kind() != hashKind {
		return nil, nil, ddberr.InvalidParam("Condition parameter type does not match schema type")
	}
	if err := checkKeyValue(hashName, hash.Values[0], true); err != nil {
		return nil, nil, err
	}
	if sort != nil {
		for _, v := range sort.Values {
			if v.Kind() != rangeKind {
				return nil, nil, ddberr.InvalidParam("Condition parameter type does not match schema type")
			}
		}
		if sort.Op == expr.KeyBeginsWith && rangeKind == attr.N {
			return nil, nil, ddberr.Validation("Query key condition not supported")
		}
	}
	prefix := keycodec.AppendPartition(nil, space(t), hash.Values[0])
	end := prefixEnd(prefix)
	if sort == nil {
		return prefix, end, nil
	}
	at := func(v attr.Value) []byte { return keycodec.AppendValue(append([]byte(nil), prefix...), v) }
	v := sort.Values
	switch sort.Op {
	case expr.KeyEQ:
		k := at(v[0])
		return k, successor(k), nil
	case expr.KeyLT:
		return prefix, at(v[0]), nil
	case expr.KeyLE:
		return prefix, successor(at(v[0])), nil
	case expr.KeyGT:
		return successor(at(v[0])), end, nil
	case expr.KeyGE:
		return at(v[0]), end, nil
	case expr.KeyBetween:
		return at(v[0]), successor(at(v[1])), nil
	case expr.KeyBeginsWith:
		p := keycodec.AppendPrefixValue(append([]byte(nil), prefix...), v[0])
		return p, prefixEnd(p), nil
	}
	return nil, nil, ddberr.Validation("Query key condition not supported")
}
