package engine

import (
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
)

// nestedHeads collects the top-level attributes that document paths look
// inside (a.b, a[0]), for checkKeyPaths.
type nestedHeads map[string]bool

// paths adds the heads of the nested paths among ps.
func (h nestedHeads) paths(ps []*expr.Path) nestedHeads {
	for _, p := range ps {
		if len(p.Elems) > 1 {
			h[p.Elems[0].Name] = true
		}
	}
	return h
}

// expr adds the heads of the nested paths in e (nil is none).
func (h nestedHeads) expr(e expr.Expr) nestedHeads {
	if e == nil {
		return h
	}
	expr.Walk(e, func(x expr.Expr) {
		if p, ok := x.(*expr.Path); ok && len(p.Elems) > 1 {
			h[p.Elems[0].Name] = true
		}
	})
	return h
}

// update adds the heads of the nested paths an UpdateExpression writes or
// reads (nil is none).
func (h nestedHeads) update(u *expr.Update) nestedHeads {
	if u == nil {
		return h
	}
	for _, a := range u.Actions() {
		h.paths([]*expr.Path{a.Path})
		h.expr(a.Value)
	}
	return h
}

// checkKeyPaths refuses a document path that looks inside a key attribute
// of the table or of one of its secondary indexes: key attributes are
// scalars. The table's key attributes are checked first, then the GSIs'
// and LSIs', and the first one found is named ("Key: a" for the table's,
// "IndexKey: d" for an index's).
//
// Source: dynalite's db.validateKeyPaths, whose tests were checked against
// DynamoDB (getItem.js, query.js, scan.js and updateItem.js "non-scalar key
// access"; ../shared/cases/behaviour.jsonl), applied to GetItem's and
// BatchGetItem's projections, Query's and Scan's projections and filters,
// and UpdateItem's update expression; the IndexKey wording is quoted from
// DynamoDB in ScyllaDB Alternator's test_gsi.py and test_lsi.py.
func checkKeyPaths(t *catalog.Table, heads nestedHeads) error {
	if len(heads) == 0 {
		return nil
	}
	for _, k := range t.KeySchema {
		if heads[k.AttributeName] {
			return keyPathError("Key: " + k.AttributeName)
		}
	}
	for _, ixs := range [][]*catalog.Index{t.GSIs, t.LSIs} {
		for _, ix := range ixs {
			for _, k := range ix.KeySchema {
				if heads[k.AttributeName] {
					return keyPathError("IndexKey: " + k.AttributeName)
				}
			}
		}
	}
	return nil
}

func keyPathError(which string) error {
	return ddberr.Validation("Key attributes must be scalars; list random access '[]' and map lookup '.' are not allowed: " + which)
}
