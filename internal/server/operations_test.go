package server_test

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// modelOperations are the operations of the DynamoDB and DynamoDB Streams
// service models (botocore, 2026: 57 and 4).
var modelOperations = strings.Fields(`BatchExecuteStatement BatchGetItem BatchWriteItem CreateBackup CreateGlobalTable
CreateTable DeleteBackup DeleteItem DeleteResourcePolicy DeleteTable DescribeBackup DescribeContinuousBackups
DescribeContributorInsights DescribeEndpoints DescribeExport DescribeGlobalTable DescribeGlobalTableSettings
DescribeImport DescribeKinesisStreamingDestination DescribeLimits DescribeTable DescribeTableReplicaAutoScaling
DescribeTimeToLive DisableKinesisStreamingDestination EnableKinesisStreamingDestination ExecuteStatement
ExecuteTransaction ExportTableToPointInTime GetItem GetResourcePolicy ImportTable ListBackups ListContributorInsights
ListExports ListGlobalTables ListImports ListTables ListTagsOfResource PutItem PutResourcePolicy Query
RestoreTableFromBackup RestoreTableToPointInTime Scan TagResource TransactGetItems TransactWriteItems UntagResource
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
			if !unknown {
				t.Errorf("%s is marked not supported but answers %s", op, body)
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
