package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// workload runs one operation from cfg.conc workers.
type workload struct {
	c     *dynamodb.Client
	cfg   config
	nonce string // makes PutItem keys distinct across runs
}

// phaseResult is what one timed phase observed.
type phaseResult struct {
	elapsed   time.Duration
	latencies []time.Duration // successful and failed ops alike
	errors    int
	firstErr  string
}

func newWorkload(c *dynamodb.Client, cfg config) *workload {
	return &workload{c: c, cfg: cfg, nonce: fmt.Sprintf("%x", time.Now().UnixNano())}
}

// phase runs the workload for d; with keep it records every latency.
func (w *workload) phase(ctx context.Context, d time.Duration, keep bool) phaseResult {
	start := time.Now()
	deadline := start.Add(d)
	results := make([]phaseResult, w.cfg.conc)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func(id int, r *phaseResult) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(start.UnixNano()), uint64(id)))
			// With -rate, worker id sends its share on a fixed schedule.
			var every time.Duration
			if w.cfg.rate > 0 {
				every = time.Duration(float64(w.cfg.conc) / w.cfg.rate * float64(time.Second))
			}
			for seq := 0; time.Now().Before(deadline); seq++ {
				if every > 0 {
					at := start.Add(time.Duration(seq)*every + time.Duration(id)*every/time.Duration(w.cfg.conc))
					if at.After(deadline) {
						break
					}
					time.Sleep(time.Until(at))
				}
				t0 := time.Now()
				err := w.do(ctx, rng, id, seq)
				if keep {
					r.latencies = append(r.latencies, time.Since(t0))
				}
				if err != nil {
					r.errors++
					if r.firstErr == "" {
						r.firstErr = err.Error()
					}
				}
			}
		}(i, &results[i])
	}
	wg.Wait()
	total := phaseResult{elapsed: time.Since(start)}
	for _, r := range results {
		total.latencies = append(total.latencies, r.latencies...)
		total.errors += r.errors
		if total.firstErr == "" {
			total.firstErr = r.firstErr
		}
	}
	return total
}

// do performs one operation; a response without the expected items is an
// error too.
func (w *workload) do(ctx context.Context, rng *rand.Rand, worker, seq int) error {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.reqTimeout)
	defer cancel()
	table := aws.String(w.cfg.table)
	switch w.cfg.op {
	case "put":
		pk := fmt.Sprintf("P#%s#%d#%d", w.nonce, worker, seq)
		_, err := w.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: makeItem(pk, "S#0", int64(seq))})
		return err
	case "put-open":
		// Seed 001's open orders: every one on GSI1PK = STATUS#open (or
		// spread over -shards suffixes), small enough for 1 write unit.
		gsiPK := "STATUS#open"
		if w.cfg.shards > 0 {
			gsiPK = fmt.Sprintf("STATUS#open#%d", (seq*w.cfg.conc+worker)%w.cfg.shards)
		}
		id := fmt.Sprintf("ORDER#%s#%d#%d", w.nonce, worker, seq)
		_, err := w.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: id}, "SK": &types.AttributeValueMemberS{Value: id},
			"GSI1PK": &types.AttributeValueMemberS{Value: gsiPK}, "GSI1SK": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339Nano)},
		}})
		return err
	case "put4":
		for i := 0; i < 4; i++ {
			pk := fmt.Sprintf("P#%s#%d#%d#%d", w.nonce, worker, seq, i)
			if _, err := w.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: makeItem(pk, "S#0", int64(seq))}); err != nil {
				return err
			}
		}
		return nil
	case "transact4":
		items := make([]types.TransactWriteItem, 4)
		for i := range items {
			pk := fmt.Sprintf("T#%s#%d#%d#%d", w.nonce, worker, seq, i)
			items[i] = types.TransactWriteItem{Put: &types.Put{TableName: table, Item: makeItem(pk, "S#0", int64(seq))}}
		}
		_, err := w.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	case "transact4-hot":
		// Four distinct counters among the first 10 pre-loaded items: every
		// worker contends for the same few keys.
		perm := rng.Perm(10)[:4]
		items := make([]types.TransactWriteItem, 4)
		for i, h := range perm {
			pk, sk := getKey(h)
			items[i] = types.TransactWriteItem{Update: &types.Update{
				TableName: table, Key: keyOf(pk, sk),
				UpdateExpression:          aws.String("SET n = n + :one"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
			}}
		}
		_, err := w.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		return err
	case "get":
		pk, sk := getKey(rng.IntN(w.cfg.items))
		out, err := w.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: keyOf(pk, sk), ConsistentRead: aws.Bool(false)})
		if err == nil && out.Item == nil {
			err = fmt.Errorf("GetItem %s: no item", pk)
		}
		return err
	case "update":
		// A counter bump guarded by a condition, on a random pre-loaded
		// item (seed 001's optimistic-locking shape without the read).
		pk, sk := getKey(rng.IntN(w.cfg.items))
		_, err := w.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: table, Key: keyOf(pk, sk),
			UpdateExpression:          aws.String("SET n = n + :one"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		})
		return err
	default:
		in := queryInput(w.cfg.table)
		if w.cfg.op == "query-gsi" {
			in = queryGSIInput(w.cfg.table)
		}
		out, err := w.c.Query(ctx, in)
		if err == nil && len(out.Items) != queryItems {
			err = fmt.Errorf("query returned %d items, want %d", len(out.Items), queryItems)
		}
		return err
	}
}
