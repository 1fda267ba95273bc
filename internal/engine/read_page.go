package engine

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
)

// maxPageBytes is the most item data one Query or Scan page reads, before
// any filter or projection.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html
const maxPageBytes = 1 << 20

// page reads one Query or Scan page from an iterator over stored items or
// index entries.
type page struct {
	plan      *keyPlan
	filter    expr.Expr
	proj      *eval.Projection
	countOnly bool
	limit     int // 0: none
	maxBytes  int // the page's byte limit: maxPageBytes, or less (ReadRequest.MaxBytes)
	out       *api.ReadOutput
	// readBytes counts every byte read, for the 1 MB page limit;
	// entryBytes the items or index entries the range holds, and
	// fetchBytes the table items fetched for an LSI entry, each rounded
	// up to 4 KB on its own as DynamoDB charges them.
	readBytes  int
	entryBytes int
	fetched    []int
}

// units returns the read capacity of the page: the entries' summed size
// rounded once, plus each fetched item rounded on its own (charged to the
// table: fetch), halved for eventually consistent reads.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.ThroughputConsiderations.Reads
func (p *page) units(consistent bool) (entries, fetch float64) {
	for _, size := range p.fetched {
		fetch += readUnits(size, consistent)
	}
	return readUnits(p.entryBytes, consistent), fetch
}

func newPage(plan *keyPlan, rr *api.ReadRequest) *page {
	p := &page{plan: plan, filter: rr.Filter, out: &api.ReadOutput{}, maxBytes: maxPageBytes}
	if rr.MaxBytes > 0 {
		p.maxBytes = min(rr.MaxBytes, maxPageBytes)
	}
	switch rr.SelectValue() {
	case "COUNT":
		p.countOnly = true
		p.out.CountOnly = true
	case "SPECIFIC_ATTRIBUTES":
		p.proj = eval.NewProjection(rr.Projection)
	}
	if rr.Limit != nil {
		p.limit = int(*rr.Limit)
	}
	return p
}

// run consumes it until the page is full or the range ends. A page that
// stops early (Limit or 1 MB) carries a LastEvaluatedKey made of the last
// item's key attributes (for an index: the table's and the index's). On
// an LSI read that needs unprojected attributes, each entry's item is
// read from the table in tx, and its size counts too.
func (p *page) run(tx storage.Txn, it storage.Iterator) (err error) {
	defer func() {
		if cerr := it.Close(); err == nil {
			err = cerr
		}
	}()
	var lastJSON []byte
	stopped := false
	for it.Next() {
		size, js, err := splitItem(it.Value())
		if err != nil {
			return err
		}
		p.readBytes += size
		p.entryBytes += size
		p.out.ScannedCount++
		item := js
		if p.plan.fetch {
			full, fullSize, ok, err := fetchItem(tx, p.plan.table, js)
			if err != nil {
				return err
			}
			if ok {
				item = full
				p.readBytes += fullSize
				p.fetched = append(p.fetched, fullSize)
			}
		}
		if err := p.take(item); err != nil {
			return err
		}
		if (p.limit > 0 && p.out.ScannedCount >= p.limit) || p.readBytes >= p.maxBytes {
			lastJSON = append([]byte(nil), js...)
			stopped = true
			break
		}
	}
	p.out.ReadBytes = p.readBytes
	if stopped {
		item, err := attr.DecodeItem(lastJSON)
		if err != nil {
			return err
		}
		p.out.LastEvaluatedKey = make(attr.Item)
		for _, n := range p.plan.keyNames() {
			if v, ok := item[n]; ok {
				p.out.LastEvaluatedKey[n] = v
			}
		}
	}
	return nil
}

// take applies the filter and projection to one stored item.
func (p *page) take(js []byte) error {
	var item attr.Item
	if p.filter != nil || p.proj != nil {
		var err error
		if item, err = attr.DecodeItem(js); err != nil {
			return err
		}
	}
	if p.filter != nil && !eval.Condition(p.filter, item) {
		return nil
	}
	p.out.Count++
	if p.countOnly {
		return nil
	}
	if p.proj != nil {
		js = attr.AppendItem(nil, p.proj.Apply(item))
	}
	if p.out.Body == nil {
		// Size the body for the page: Limit items like this one, at most
		// 64 KiB up front (it grows from there).
		hint := 64 << 10
		if p.limit > 0 && p.limit < hint/(len(js)+1) {
			hint = p.limit * (len(js) + 1)
		}
		p.out.StartItems(hint)
	}
	p.out.AddItem(js)
	return nil
}

// resume narrows [lo, hi) to the keys after start in the scan direction.
func resume(lo, hi, start []byte, forward bool) ([]byte, []byte) {
	if forward {
		if s := successor(start); bytes.Compare(s, lo) > 0 {
			lo = s
		}
	} else if hi == nil || bytes.Compare(start, hi) < 0 {
		hi = start
	}
	return lo, hi
}

// readTable runs fn in a read-only transaction with the plan of a Query
// or Scan (req) of the ACTIVE table called name (readPlan).
func (e *Engine) readTable(ctx context.Context, name string, req *api.ReadRequest, fn func(tx storage.Txn, plan *keyPlan) error) error {
	return e.read(ctx, func(tx storage.Txn) error {
		t, err := e.activeTable(tx, name)
		if err != nil {
			return err
		}
		plan, err := e.readPlan(t, req)
		if err != nil {
			return err
		}
		return fn(tx, plan)
	})
}

// keySpan is the storage key range [lo, hi) a Query or Scan page reads,
// backwards when reverse; from is the key its throttle demand is charged
// to (readDemand), query whether it is a Query's (Contributor Insights
// counts those by partition key).
type keySpan struct {
	lo, hi, from []byte
	reverse      bool
	query        bool
}

// readSpan reads one page of plan's key space over span for req: it
// refuses a projection or filter on key attributes the way DynamoDB does
// (checkKeyPaths), admits the read to its partition, reads the page and
// charges it, and returns it with its ConsumedCapacity.
func (e *Engine) readSpan(ctx context.Context, tx storage.Txn, plan *keyPlan, req *api.ReadRequest, span keySpan) (*api.ReadOutput, error) {
	if err := checkKeyPaths(plan.table, pathHeads(req.Projection)); err != nil {
		return nil, err
	}
	if err := checkKeyPaths(plan.table, exprHeads(req.Filter)); err != nil {
		return nil, err
	}
	demand := readDemand(plan, span.from, span.query)
	if err := e.admit(ctx, plan.table, demand); err != nil {
		return nil, err
	}
	p := newPage(plan, req)
	it, err := tx.Scan(span.lo, span.hi, span.reverse)
	if err == nil {
		err = p.run(tx, it)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", plan.name(), err)
	}
	entries, fetch := p.units(req.IsConsistent())
	demand.Units = entries + fetch
	e.charge([]throttle.Demand{demand})
	p.out.ConsumedCapacity = readPlanCapacity(req.ReturnConsumedCapacity, plan, entries, fetch)
	return p.out, nil
}
