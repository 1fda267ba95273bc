package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

const (
	queryPK    = "Q#1" // the partition read by the query op
	queryItems = 20    // items in queryPK: SK = A#0000..A#0019
	dataLen    = 960   // length of the data attribute: items are ~1 KB
)

var payload = strings.Repeat("x", dataLen)

// getKey returns the primary key of the i-th pre-loaded GetItem item.
func getKey(i int) (pk, sk string) { return fmt.Sprintf("K#%04d", i), "S#0" }

// maxGSIs bounds -gsis.
const maxGSIs = 5

// gsiCount is -gsis: the table's GSIs, GSI1..GSIn.
var gsiCount int

// makeItem returns a ~1 KB item shaped like bench-ceiling's canned items:
// GSI1PK is "G#" + PK (so the query partition is one GSI1 partition too),
// and with -gsis n the item carries GSIiPK/GSIiSK for i = 2..n as well.
func makeItem(pk, sk string, n int64) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		"PK":     &types.AttributeValueMemberS{Value: pk},
		"SK":     &types.AttributeValueMemberS{Value: sk},
		"GSI1PK": &types.AttributeValueMemberS{Value: "G#" + pk},
		"GSI1SK": &types.AttributeValueMemberS{Value: sk},
		"n":      &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)},
		"ts":     &types.AttributeValueMemberS{Value: strconv.FormatInt(time.Now().UnixNano(), 10)},
		"data":   &types.AttributeValueMemberS{Value: payload},
	}
	for i := 2; i <= gsiCount; i++ {
		item[fmt.Sprintf("GSI%dPK", i)] = &types.AttributeValueMemberS{Value: fmt.Sprintf("G%d#%d", i, n%100)}
		item[fmt.Sprintf("GSI%dSK", i)] = &types.AttributeValueMemberS{Value: sk}
	}
	return item
}

// streamView is -stream: the view type of the table's stream ("": none).
var streamView string

// gsiDefinitions returns the GSIs of -gsis and their attribute
// definitions.
func gsiDefinitions() ([]types.GlobalSecondaryIndex, []types.AttributeDefinition) {
	var gsis []types.GlobalSecondaryIndex
	var defs []types.AttributeDefinition
	for i := 1; i <= gsiCount; i++ {
		pk, sk := fmt.Sprintf("GSI%dPK", i), fmt.Sprintf("GSI%dSK", i)
		gsis = append(gsis, types.GlobalSecondaryIndex{
			IndexName: aws.String(fmt.Sprintf("GSI%d", i)),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
		defs = append(defs,
			types.AttributeDefinition{AttributeName: aws.String(pk), AttributeType: types.ScalarAttributeTypeS},
			types.AttributeDefinition{AttributeName: aws.String(sk), AttributeType: types.ScalarAttributeTypeS})
	}
	return gsis, defs
}

// ensureTable creates table (PK S HASH, SK S RANGE, PAY_PER_REQUEST) unless
// it exists, and waits until DescribeTable reports it ACTIVE.
func ensureTable(ctx context.Context, c *dynamodb.Client, table string) error {
	_, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		gsis, defs := gsiDefinitions()
		in := &dynamodb.CreateTableInput{
			TableName: aws.String(table),
			AttributeDefinitions: append([]types.AttributeDefinition{
				{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("SK"), AttributeType: types.ScalarAttributeTypeS},
			}, defs...),
			GlobalSecondaryIndexes: gsis,
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("SK"), KeyType: types.KeyTypeRange},
			},
			BillingMode: types.BillingModePayPerRequest,
		}
		if streamView != "" {
			in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(streamView)}
		}
		_, err = c.CreateTable(ctx, in)
		var inUse *types.ResourceInUseException
		if err != nil && !errors.As(err, &inUse) {
			return fmt.Errorf("CreateTable: %w", err)
		}
	} else if err != nil {
		return fmt.Errorf("DescribeTable: %w", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
		if err == nil && out.Table != nil && out.Table.TableStatus == types.TableStatusActive {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = fmt.Errorf("status %v", out.Table.TableStatus)
			}
			return fmt.Errorf("table %s not ACTIVE after 60s: %w", table, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// preloadWorkers is how many BatchWriteItem requests preload keeps in
// flight.
const preloadWorkers = 8

// preload writes the GetItem items and the query partition unless a probe
// finds them already there: BatchWriteItems of 25, preloadWorkers at a
// time, each chunk made as it is sent (a load of millions of items never
// holds them all). It reports the load's rate on standard error.
func preload(ctx context.Context, c *dynamodb.Client, table string, items int) error {
	if loaded(ctx, c, table, items) {
		return nil
	}
	total := items + queryItems
	// item returns the i-th item of the load: the GetItem items, then the
	// query partition.
	item := func(i int) map[string]types.AttributeValue {
		if i < items {
			pk, sk := getKey(i)
			return makeItem(pk, sk, int64(i))
		}
		return makeItem(queryPK, fmt.Sprintf("A#%04d", i-items), int64(i-items))
	}
	began := time.Now()
	chunks := make(chan int)
	errs := make(chan error, preloadWorkers)
	var wg sync.WaitGroup
	for range preloadWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for from := range chunks {
				reqs := make([]types.WriteRequest, 0, 25)
				for i := from; i < min(from+25, total); i++ {
					reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item(i)}})
				}
				if err := batchWrite(ctx, c, table, reqs); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for from := 0; from < total; from += 25 {
		select {
		case chunks <- from:
		case err = <-errs:
			break feed
		}
	}
	close(chunks)
	wg.Wait()
	if err == nil && len(errs) > 0 {
		err = <-errs
	}
	if err != nil {
		return err
	}
	took := time.Since(began)
	fmt.Fprintf(os.Stderr, "loadgen: loaded %d items in %v (%.0f items/s, BatchWriteItem of 25, %d in flight)\n",
		total, took.Round(time.Millisecond), float64(total)/took.Seconds(), preloadWorkers)
	if !loaded(ctx, c, table, items) {
		return errors.New("items not readable after loading them")
	}
	return nil
}

// batchWrite writes one BatchWriteItem chunk, re-sending UnprocessedItems
// with a growing back-off.
func batchWrite(ctx context.Context, c *dynamodb.Client, table string, reqs []types.WriteRequest) error {
	backoff := 10 * time.Millisecond
	for attempt := 0; len(reqs) > 0; attempt++ {
		if attempt == 20 {
			return fmt.Errorf("BatchWriteItem: %d items still unprocessed after %d attempts", len(reqs), attempt)
		}
		out, err := c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{table: reqs},
		})
		if err != nil {
			return fmt.Errorf("BatchWriteItem: %w", err)
		}
		reqs = out.UnprocessedItems[table]
		if len(reqs) > 0 {
			time.Sleep(backoff)
			backoff = min(2*backoff, time.Second)
		}
	}
	return nil
}

// loaded reports whether the last GetItem key and the full query partition
// are readable.
func loaded(ctx context.Context, c *dynamodb.Client, table string, items int) bool {
	pk, sk := getKey(items - 1)
	g, err := c.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(table),
		Key:            keyOf(pk, sk),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil || g.Item == nil {
		return false
	}
	q, err := c.Query(ctx, queryInput(table))
	return err == nil && len(q.Items) == queryItems
}

// keyOf returns the key attributes of an item.
func keyOf(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: pk},
		"SK": &types.AttributeValueMemberS{Value: sk},
	}
}

// queryGSIInput reads the query partition through GSI1.
func queryGSIInput(table string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String("GSI1"),
		KeyConditionExpression:    aws.String("GSI1PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "G#" + queryPK}},
	}
}

// queryInput returns the query op's request: PK = :pk on queryPK.
func queryInput(table string) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 aws.String(table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: queryPK}},
	}
}
