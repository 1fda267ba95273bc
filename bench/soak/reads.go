package main

// The clients' reads: Query and Scan pages, compared with the model.

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// queryPage reads one page of in and counts it; false after an error
// (reported unless the soak is stopping).
func (w *worker) queryPage(op string, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, bool) {
	var out *dynamodb.QueryOutput
	err := w.readCall(op, func(ctx context.Context) error {
		var err error
		out, err = w.db.Query(ctx, in)
		return err
	})
	if err != nil {
		if w.ctx.Err() == nil {
			w.unexpected(op, err)
		}
		return nil, false
	}
	w.st.pages[op]++
	return out, true
}

// queryPages runs a Query to its last page and returns the items by key.
func (w *worker) queryPages(op string, in *dynamodb.QueryInput) (map[string]item, bool) {
	got := map[string]item{}
	for {
		out, ok := w.queryPage(op, in)
		if !ok {
			return nil, false
		}
		for _, it := range out.Items {
			k := itemKey(it)
			if got[k] != nil {
				w.viol.add(2, "%s: key %s returned twice across pages", op, showKey(k))
			}
			got[k] = it
		}
		if len(out.LastEvaluatedKey) == 0 {
			return got, true
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// query reads one of the client's partitions with a strongly consistent
// Query, in pages of 1 to 5 items, and compares it with the model.
func (w *worker) query() {
	const op = "Query"
	p := w.rng.IntN(partitions + ttlPartitions)
	pk := fmt.Sprintf("K%02d#%d", w.id, p)
	if p >= partitions {
		pk = fmt.Sprintf("T%02d#%d", w.id, p-partitions)
	}
	got, ok := w.queryPages(op, &dynamodb.QueryInput{
		TableName: aws.String(tableName), KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: item{":pk": sv(pk)},
		ConsistentRead:            aws.Bool(true), Limit: aws.Int32(int32(1 + w.rng.IntN(5))),
	})
	if !ok {
		return
	}
	w.st.ok[op]++
	progress.Add(1)
	w.st.readChecks++
	w.compare(op, pk, got, func(m item) item { return m })
}

// compare checks what a consistent read of partition pk returned against
// the model, through view (the projection of an index, or nil when the
// item is not in it).
func (w *worker) compare(op, pk string, got map[string]item, view func(item) item) {
	for _, e := range w.parts[pk] {
		states := make([]item, len(e.states))
		for i, s := range e.states {
			if s != nil {
				states[i] = view(s)
			}
		}
		if !matches(got[e.id()], states) {
			w.viol.add(2, "%s %s: a consistent read returns %s, the model holds %s", op, showKey(e.id()), showItem(got[e.id()]), showStates(states))
		}
		delete(got, e.id())
	}
	for k, m := range got {
		w.viol.add(2, "%s %s: a consistent read returns %s, a key no write made", op, showKey(k), showItem(m))
	}
}

// queryLSI reads a partition through LSI1 (v >= x, consistent) and
// compares it with the model's projection.
func (w *worker) queryLSI() {
	const op = "Query LSI1"
	pk := fmt.Sprintf("K%02d#%d", w.id, w.rng.IntN(partitions))
	x := int64(w.rng.IntN(100))
	got, ok := w.queryPages(op, &dynamodb.QueryInput{
		TableName: aws.String(tableName), IndexName: aws.String("LSI1"),
		KeyConditionExpression:    aws.String("PK = :pk AND #v >= :x"),
		ExpressionAttributeNames:  map[string]string{"#v": "v"},
		ExpressionAttributeValues: item{":pk": sv(pk), ":x": nv(x)},
		ConsistentRead:            aws.Bool(true), Limit: aws.Int32(int32(1 + w.rng.IntN(5))),
	})
	if !ok {
		return
	}
	w.st.ok[op]++
	progress.Add(1)
	w.st.readChecks++
	lsi := indexes[2]
	w.compare(op, pk, got, func(m item) item {
		if v, ok := num(m, "v"); !ok || v < x {
			return nil
		}
		return lsi.project(m)
	})
}

// queryGSI reads up to three pages of one GSI1 partition (eventually
// consistent: nothing to compare).
func (w *worker) queryGSI() {
	const op = "Query GSI1"
	g := fmt.Sprintf("g%d", w.rng.IntN(8))
	if w.rng.IntN(8) == 0 {
		g = "acct"
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(tableName), IndexName: aws.String("GSI1"),
		KeyConditionExpression:    aws.String("g = :g"),
		ExpressionAttributeValues: item{":g": sv(g)}, Limit: aws.Int32(25),
	}
	for page := 0; page < 3; page++ {
		out, ok := w.queryPage(op, in)
		if !ok {
			return
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	w.st.ok[op]++
	progress.Add(1)
}

// scanPage reads the next page of the client's walk through one of four
// parallel-scan segments.
func (w *worker) scanPage() {
	const op = "Scan"
	var out *dynamodb.ScanOutput
	err := w.readCall(op, func(ctx context.Context) error {
		var err error
		out, err = w.db.Scan(ctx, &dynamodb.ScanInput{
			TableName: aws.String(tableName), Limit: aws.Int32(40),
			Segment: aws.Int32(int32(w.id % 4)), TotalSegments: aws.Int32(4),
			ConsistentRead: aws.Bool(w.rng.IntN(2) == 0), ExclusiveStartKey: w.scan,
		})
		return err
	})
	if err != nil {
		if w.ctx.Err() == nil {
			w.unexpected(op, err)
		}
		return
	}
	w.st.pages[op]++
	w.scan = out.LastEvaluatedKey
	if len(w.scan) == 0 {
		w.scan = nil
	}
	w.st.ok[op]++
	progress.Add(1)
}
