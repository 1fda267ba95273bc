package server_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// modelOperations are the operations of the DynamoDB and DynamoDB Streams
// service models (@aws-sdk/client-dynamodb 3.1169.0, late 2026: 62 and 4).
var modelOperations = strings.Fields(`BatchExecuteStatement BatchGetItem BatchWriteItem CancelBulkOperation CreateBackup CreateGlobalTable
CreateTable DeleteBackup DeleteItem DeleteResourcePolicy DeleteTable DescribeBackup DescribeContinuousBackups
DescribeContributorInsights DescribeEndpoints DescribeExport DescribeGlobalTable DescribeGlobalTableSettings
DescribeBulkOperation DescribeImport DescribeKinesisStreamingDestination DescribeLimits DescribeTable DescribeTableReplicaAutoScaling
DescribeTimeToLive DisableKinesisStreamingDestination EnableKinesisStreamingDestination ExecuteStatement
ExecuteTransaction ExportTableToPointInTime GetItem GetResourcePolicy ImportTable ListBackups ListContributorInsights
ListBulkOperations ListExports ListGlobalTables ListImports ListTables ListTagsOfResource PutItem PutResourcePolicy Query
RestoreTableFromBackup RestoreTableToPointInTime Scan SearchVectors StartBulkPutItems TagResource TransactGetItems TransactWriteItems UntagResource
UpdateContinuousBackups UpdateContributorInsights UpdateGlobalTable UpdateGlobalTableSettings UpdateItem
UpdateKinesisStreamingDestination UpdateTable UpdateTableReplicaAutoScaling UpdateTimeToLive
DescribeStream GetRecords GetShardIterator ListStreams`)

// TestOperationTable keeps docs/operations.md true: it lists every
// operation of the service models once, and each one the table calls
// supported or partial answers without UnknownOperationException, while
// each one it calls not supported answers with it.
func TestOperationTable(t *testing.T) {
	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	ts := newServer(t)
	seen := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !slices.Contains(modelOperations, strings.TrimSpace(cells[1])) {
			continue
		}
		op, api, status := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])
		if seen[op] {
			t.Errorf("%s is listed twice", op)
		}
		seen[op] = true
		target := op
		if api == "DynamoDB Streams" {
			target = "DynamoDBStreams_20120810." + op
		}
		_, _, body := call(t, ts, target, `{}`)
		unknown := strings.Contains(string(body), "UnknownOperationException")
		switch status {
		case "supported", "partial":
			if unknown {
				t.Errorf("%s is marked %s but answers %s", op, status, body)
			}
		case "not supported":
			// The message names the operation and the feature of the
			// table's Notes column (issue 19: a user is not left guessing).
			feature := strings.TrimSpace(cells[4])
			if !unknown || !strings.Contains(string(body), op+" is a DynamoDB operation ("+feature+") that dynago does not support yet") {
				t.Errorf("%s is marked not supported (%s) but answers %s", op, feature, body)
			}
		default:
			t.Errorf("%s: unknown status %q", op, status)
		}
	}
	for _, op := range modelOperations {
		if !seen[op] {
			t.Errorf("docs/operations.md does not list %s", op)
		}
	}
}

// TestUnknownTarget: a target DynamoDB does not know answers as DynamoDB
// does, UnknownOperationException with no message, before authentication
// (docs/dynamodb-behaviour.md §1, from dynalite's connection tests).
func TestUnknownTarget(t *testing.T) {
	ts := newServer(t)
	for _, target := range []string{"DynamoDB_20120810.ListTable", "DynamoDB_20120810.Whatever", "DynamoDBStreams_20120810.PutItem", "whatever", ""} {
		status, _, body := call(t, ts, target, `{}`)
		if status != 400 || string(body) != `{"__type":"com.amazon.coral.service#UnknownOperationException"}` {
			t.Errorf("%q: %d %s", target, status, body)
		}
	}
}
