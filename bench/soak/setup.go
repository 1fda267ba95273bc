package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The table: PK (S) HASH, SK (S) RANGE, on demand, a stream with
// NEW_AND_OLD_IMAGES, TTL on exp, and three indexes of three projection
// types. Every index is sparse: an item is in it only when it has the
// index's key attributes.
const (
	tableName  = "soak"
	ttlAttr    = "exp"
	accounts   = 32   // bank accounts A#00..A#31
	openingBal = 1000 // each account's opening balance
)

// index describes one secondary index for the index check.
type index struct {
	name      string
	hash, rng string   // key attributes (rng "" for none)
	proj      string   // ALL, KEYS_ONLY or INCLUDE
	include   []string // non-key attributes of an INCLUDE projection
	local     bool     // an LSI: ConsistentRead is allowed
}

var indexes = []index{
	{name: "GSI1", hash: "g", rng: "gs", proj: "ALL"},
	{name: "GSI2", hash: "cat", proj: "KEYS_ONLY"},
	{name: "LSI1", hash: "PK", rng: "v", proj: "INCLUDE", include: []string{"c"}, local: true},
}

// project returns what index ix holds for base item m, or nil when m
// lacks one of its key attributes.
func (ix index) project(m item) item {
	if m[ix.hash] == nil || (ix.rng != "" && m[ix.rng] == nil) {
		return nil
	}
	if ix.proj == "ALL" {
		return m
	}
	p := item{"PK": m["PK"], "SK": m["SK"], ix.hash: m[ix.hash]}
	if ix.rng != "" {
		p[ix.rng] = m[ix.rng]
	}
	for _, a := range ix.include {
		if v := m[a]; v != nil {
			p[a] = v
		}
	}
	return p
}

func keySchema(hash, rng string) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(hash), KeyType: types.KeyTypeHash}}
	if rng != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(rng), KeyType: types.KeyTypeRange})
	}
	return ks
}

func projection(ix index) *types.Projection {
	p := &types.Projection{ProjectionType: types.ProjectionType(ix.proj)}
	if len(ix.include) > 0 {
		p.NonKeyAttributes = ix.include
	}
	return p
}

// setupTable creates the table, waits until it and its indexes are
// ACTIVE, enables TTL and writes the bank accounts. It returns the
// stream's ARN. The caller retries it as a whole on a fresh data
// directory only; everything here is done once, before any kill.
func setupTable(ctx context.Context, db *dynamodb.Client) (string, error) {
	defs := []types.AttributeDefinition{}
	for name, t := range map[string]types.ScalarAttributeType{"PK": "S", "SK": "S", "g": "S", "gs": "N", "cat": "S", "v": "N"} {
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: t})
	}
	in := &dynamodb.CreateTableInput{
		TableName:            aws.String(tableName),
		AttributeDefinitions: defs,
		KeySchema:            keySchema("PK", "SK"),
		BillingMode:          types.BillingModePayPerRequest,
		StreamSpecification: &types.StreamSpecification{
			StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages,
		},
	}
	for _, ix := range indexes {
		if ix.local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
				IndexName: aws.String(ix.name), KeySchema: keySchema(ix.hash, ix.rng), Projection: projection(ix),
			})
		} else {
			in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
				IndexName: aws.String(ix.name), KeySchema: keySchema(ix.hash, ix.rng), Projection: projection(ix),
			})
		}
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		return "", fmt.Errorf("CreateTable: %w", err)
	}
	var arn string
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, err := db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tableName)})
		if err == nil && out.Table.TableStatus == types.TableStatusActive {
			active := true
			for _, g := range out.Table.GlobalSecondaryIndexes {
				active = active && g.IndexStatus == types.IndexStatusActive
			}
			if active {
				arn = aws.ToString(out.Table.LatestStreamArn)
				break
			}
		}
		if time.Now().After(deadline) {
			return "", errors.New("table not ACTIVE after 60s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if arn == "" {
		return "", errors.New("DescribeTable gives no LatestStreamArn")
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(tableName),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(ttlAttr), Enabled: aws.Bool(true)},
	}); err != nil {
		return "", fmt.Errorf("UpdateTimeToLive: %w", err)
	}
	var reqs []types.WriteRequest
	for a := 0; a < accounts; a++ {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: accountItem(a, openingBal)}})
	}
	for len(reqs) > 0 {
		n := min(25, len(reqs))
		out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{tableName: reqs[:n]}})
		if err != nil {
			return "", fmt.Errorf("BatchWriteItem (accounts): %w", err)
		}
		reqs = append(out.UnprocessedItems[tableName], reqs[n:]...)
	}
	return arn, nil
}

// accountKey is the key of bank account a; accounts are in GSI1 (g=acct),
// so every transfer also updates index entries.
func accountKey(a int) item { return keyOf(fmt.Sprintf("A#%02d", a), "acct") }

func accountItem(a int, bal int64) item {
	m := accountKey(a)
	m["bal"] = nv(bal)
	m["g"] = sv("acct")
	m["gs"] = nv(int64(a))
	return m
}
