package engine

import (
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
)

// nestedHeads is the set of top-level attributes that document paths
// look inside (a.b, a[0]), for checkKeyPaths; nil when there are none, so
// that a request without nested paths allocates nothing.
type nestedHeads map[string]bool

func (h *nestedHeads) add(p *expr.Path) {
	if len(p.Elems) < 2 {
		return
	}
	if *h == nil {
		*h = nestedHeads{}
	}
	(*h)[p.Elems[0].Name] = true
}

// pathHeads returns the heads of the nested paths among ps.
func pathHeads(ps []*expr.Path) nestedHeads {
	var h nestedHeads
	for _, p := range ps {
		h.add(p)
	}
	return h
}

// walk adds the nested paths in e (nil is none).
func (h *nestedHeads) walk(e expr.Expr) {
	if e == nil {
		return
	}
	expr.Walk(e, func(x expr.Expr) {
		if p, ok := x.(*expr.Path); ok {
			h.add(p)
		}
	})
}

// exprHeads returns the heads of the nested paths in e (nil is none).
func exprHeads(e expr.Expr) nestedHeads {
	var h nestedHeads
	h.walk(e)
	return h
}

// updateHeads returns the heads of the nested paths an UpdateExpression
// writes or reads (nil is none).
func updateHeads(u *expr.Update) nestedHeads {
	var h nestedHeads
	if u != nil {
		for _, a := range u.Actions() {
			h.add(a.Path)
			h.walk(a.Value)
		}
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
