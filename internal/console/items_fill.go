package console

import (
	"context"
	"encoding/json"
	"time"
)

// Filling a filtered page. DynamoDB applies a FilterExpression after it
// reads: Limit is the number of items evaluated, not of items returned
// (developer guide, Scan.html#Scan.FilterExpression and #Scan.Limit:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Scan.html
// "A filter expression is applied after a Scan finishes but before the
// results are returned"; Query.FilterExpression says the same of Query),
// so a page of 50 read with a rare filter is mostly empty. Rather than
// leave the user to page through empty pages, a filtered page reads on
// with ExclusiveStartKey (each request the first one with the
// LastEvaluatedKey of the one before) until it holds the page size of
// items, the table or index ends, or a bound: itemsFillReads requests or
// itemsFillTime, whichever comes first. Every request of a page has the
// page size as its Limit, so the last one's matches may take the page past
// the page size: they are all shown, and Next continues from its
// LastEvaluatedKey. Count, ScannedCount and the consumed capacity are the
// sums over the requests. One request per page (the form's one=1) reads as
// DynamoDB's Limit alone does.

// itemsFillReads and itemsFillTime bound the requests of a filtered page.
var (
	itemsFillReads = 100
	itemsFillTime  = 2 * time.Second
)

// itemsRead is one request of a page after the first: where it started
// and what it found.
type itemsRead struct {
	// StartKey is its ExclusiveStartKey, compact DynamoDB JSON.
	StartKey            string
	Count, ScannedCount int
}

// itemsFilled is what the requests of a page read.
type itemsFilled struct {
	// Resp sums the responses: their items in order, Count, ScannedCount
	// and consumed capacity; its LastEvaluatedKey is the last request's.
	Resp itemsResponse
	// Request is the first request as sent.
	Request json.RawMessage
	// Requests is how many were sent; Reads are those after the first.
	Requests int
	Reads    []itemsRead
	// Stopped says a bound ended the reading before the page was full.
	Stopped string
	// Err is the first request's error; LaterErr a later one's, after
	// which the page shows what was read before it.
	Err, LaterErr error
}

// itemsFill sends request req of operation op ("Scan"), and with fill on
// reads on as the package doc of this file says.
func (c *Console) itemsFill(ctx context.Context, op string, req itemsRequest, fill bool) itemsFilled {
	var out itemsFilled
	start := time.Now()
	for {
		var resp itemsResponse
		call, err := c.callShown(ctx, "DynamoDB_20120810."+op, itemsBody(req), &resp)
		out.Requests++
		if out.Requests == 1 {
			out.Request = call.Request
			if err != nil {
				out.Err = err
				return out
			}
		} else if err != nil {
			out.Requests--
			out.LaterErr = err
			return out
		} else {
			out.Reads = append(out.Reads, itemsRead{StartKey: itemsCompactJSON(req.ExclusiveStartKey), Count: resp.Count, ScannedCount: resp.ScannedCount})
		}
		out.Resp.add(resp)
		switch {
		case !fill || len(resp.LastEvaluatedKey) == 0 || len(out.Resp.Items) >= req.Limit:
			return out
		case out.Requests >= itemsFillReads:
			out.Stopped = "requests"
			return out
		case time.Since(start) >= itemsFillTime:
			out.Stopped = "time"
			return out
		}
		req.ExclusiveStartKey = resp.LastEvaluatedKey
	}
}

// add adds response o to r: its items after r's, its counts and capacity
// to r's; the LastEvaluatedKey is o's.
func (r *itemsResponse) add(o itemsResponse) {
	r.Items = append(r.Items, o.Items...)
	r.Count += o.Count
	r.ScannedCount += o.ScannedCount
	r.LastEvaluatedKey = o.LastEvaluatedKey
	if o.ConsumedCapacity == nil {
		return
	}
	if r.ConsumedCapacity == nil {
		r.ConsumedCapacity = &itemsConsumed{TableName: o.ConsumedCapacity.TableName}
	}
	r.ConsumedCapacity.add(o.ConsumedCapacity)
}

// add adds capacity o to c, the table's and each index's share too.
func (c *itemsConsumed) add(o *itemsConsumed) {
	c.CapacityUnits += o.CapacityUnits
	c.ReadCapacityUnits += o.ReadCapacityUnits
	c.WriteCapacityUnits += o.WriteCapacityUnits
	if o.Table != nil {
		if c.Table == nil {
			c.Table = &struct{ CapacityUnits float64 }{}
		}
		c.Table.CapacityUnits += o.Table.CapacityUnits
	}
	addShares := func(to *map[string]struct{ CapacityUnits float64 }, from map[string]struct{ CapacityUnits float64 }) {
		for n, s := range from {
			if *to == nil {
				*to = map[string]struct{ CapacityUnits float64 }{}
			}
			t := (*to)[n]
			t.CapacityUnits += s.CapacityUnits
			(*to)[n] = t
		}
	}
	addShares(&c.GlobalSecondaryIndexes, o.GlobalSecondaryIndexes)
	addShares(&c.LocalSecondaryIndexes, o.LocalSecondaryIndexes)
}
