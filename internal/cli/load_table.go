package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// createTableInput builds load --create's CreateTable request from
// --key, --gsi, --billing and --capacity (usage errors).
func createTableInput(table string, o loadOptions) (*dynamodb.CreateTableInput, error) {
	keys, err := parseKeySpec("--key", o.key)
	if err != nil {
		return nil, err
	}
	defs := map[string]string{}
	var order []string
	define := func(k keyAttr) error {
		if t, ok := defs[k.name]; ok && t != k.typ {
			return usageError{fmt.Errorf("attribute %s is %s in one key and %s in another", k.name, t, k.typ)}
		} else if !ok {
			defs[k.name] = k.typ
			order = append(order, k.name)
		}
		return nil
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(table), KeySchema: keySchema(keys)}
	for _, k := range keys {
		if err := define(k); err != nil {
			return nil, err
		}
	}
	var throughput *types.ProvisionedThroughput
	switch strings.ToUpper(o.billing) {
	case "PAY_PER_REQUEST":
		in.BillingMode = types.BillingModePayPerRequest
	case "PROVISIONED":
		in.BillingMode = types.BillingModeProvisioned
		r, w, ok := strings.Cut(o.capacity, ":")
		ru, rerr := strconv.ParseInt(r, 10, 64)
		wu, werr := strconv.ParseInt(w, 10, 64)
		if !ok || rerr != nil || werr != nil || ru < 1 || wu < 1 {
			return nil, usageError{fmt.Errorf("--capacity %q: want READ:WRITE, two positive integers", o.capacity)}
		}
		throughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(ru), WriteCapacityUnits: aws.Int64(wu)}
		in.ProvisionedThroughput = throughput
	default:
		return nil, usageError{fmt.Errorf("--billing must be PAY_PER_REQUEST or PROVISIONED, not %q", o.billing)}
	}
	seen := map[string]bool{}
	for _, g := range o.gsis {
		name, spec, ok := strings.Cut(g, ":")
		if !ok || name == "" || seen[name] {
			return nil, usageError{fmt.Errorf("--gsi %q: want a new index NAME:PK:TYPE[,SK:TYPE]", g)}
		}
		seen[name] = true
		gk, err := parseKeySpec("--gsi "+name, spec)
		if err != nil {
			return nil, err
		}
		for _, k := range gk {
			if err := define(k); err != nil {
				return nil, err
			}
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:             aws.String(name),
			KeySchema:             keySchema(gk),
			Projection:            &types.Projection{ProjectionType: types.ProjectionTypeAll},
			ProvisionedThroughput: throughput,
		})
	}
	for _, n := range order {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(n), AttributeType: types.ScalarAttributeType(defs[n])})
	}
	return in, nil
}

// keySchema is a key's KeySchema: HASH, then RANGE.
func keySchema(keys []keyAttr) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(keys[0].name), KeyType: types.KeyTypeHash}}
	if len(keys) == 2 {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(keys[1].name), KeyType: types.KeyTypeRange})
	}
	return ks
}

// Waiting for a new table: DescribeTable every tableWaitPoll, for at
// most tableWaitMax.
const (
	tableWaitPoll = 250 * time.Millisecond
	tableWaitMax  = 10 * time.Minute
)

// createTable creates the table and waits until it and its global
// secondary indexes are ACTIVE. A table that exists already is an error.
//
// Source: a new table is CREATING until ACTIVE, and each GSI has its own
// IndexStatus (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TableDescription.html).
func createTable(ctx context.Context, c dataClient, in *dynamodb.CreateTableInput) error {
	table := aws.ToString(in.TableName)
	if _, err := c.CreateTable(ctx, in); err != nil {
		var inUse *types.ResourceInUseException
		if errors.As(err, &inUse) {
			return fmt.Errorf("table %s exists; load into it without --create, or delete it first", table)
		}
		return fmt.Errorf("CreateTable %s: %w", table, err)
	}
	ctx, cancel := context.WithTimeout(ctx, tableWaitMax)
	defer cancel()
	for {
		out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName})
		if err != nil {
			return fmt.Errorf("waiting for table %s: %w", table, err)
		}
		active := out.Table.TableStatus == types.TableStatusActive
		for _, g := range out.Table.GlobalSecondaryIndexes {
			active = active && g.IndexStatus == types.IndexStatusActive
		}
		if active {
			return nil
		}
		if err := sleepCtx(ctx, tableWaitPoll); err != nil {
			return fmt.Errorf("waiting for table %s to be ACTIVE: %w", table, err)
		}
	}
}
