package server

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/engine"
)

// output is an operation's response.
type output interface {
	AppendJSON(dst []byte) []byte
}

// opFunc is one operation in two steps, so that an Interceptor can see
// the input between them: decode reads and validates a body into the
// operation's input (a pointer to one of package api's input structs),
// run sends such an input to the engine.
type opFunc struct {
	decode func(body []byte, dec api.DecodeOptions) (any, error)
	run    func(ctx context.Context, e *engine.Engine, in any) (output, error)
}

// ops is the routing table: X-Amz-Target operation name → handler.
var ops = map[string]opFunc{
	"CreateTable":        handle((*engine.Engine).CreateTable),
	"DescribeTable":      handle((*engine.Engine).DescribeTable),
	"ListTables":         handle((*engine.Engine).ListTables),
	"DeleteTable":        handle((*engine.Engine).DeleteTable),
	"UpdateTable":        handle((*engine.Engine).UpdateTable),
	"UpdateTimeToLive":   handle((*engine.Engine).UpdateTimeToLive),
	"DescribeTimeToLive": handle((*engine.Engine).DescribeTimeToLive),

	"UpdateContributorInsights":   handle((*engine.Engine).UpdateContributorInsights),
	"DescribeContributorInsights": handle((*engine.Engine).DescribeContributorInsights),
	"ListContributorInsights":     handle((*engine.Engine).ListContributorInsights),

	"TagResource":        handle((*engine.Engine).TagResource),
	"UntagResource":      handle((*engine.Engine).UntagResource),
	"ListTagsOfResource": handle((*engine.Engine).ListTagsOfResource),

	"DescribeLimits":                      handle((*engine.Engine).DescribeLimits),
	"DescribeEndpoints":                   handle((*engine.Engine).DescribeEndpoints),
	"DescribeContinuousBackups":           handle((*engine.Engine).DescribeContinuousBackups),
	"UpdateContinuousBackups":             handle((*engine.Engine).UpdateContinuousBackups),
	"DescribeKinesisStreamingDestination": handle((*engine.Engine).DescribeKinesisStreamingDestination),
	"DescribeTableReplicaAutoScaling":     handle((*engine.Engine).DescribeTableReplicaAutoScaling),
	"PutItem":                             handle((*engine.Engine).PutItem),
	"GetItem":                             handle((*engine.Engine).GetItem),
	"DeleteItem":                          handle((*engine.Engine).DeleteItem),
	"UpdateItem":                          handle((*engine.Engine).UpdateItem),
	"BatchGetItem":                        handle((*engine.Engine).BatchGetItem),
	"BatchWriteItem":                      handle((*engine.Engine).BatchWriteItem),
	"Query":                               handle((*engine.Engine).Query),
	"Scan":                                handle((*engine.Engine).Scan),
	"TransactWriteItems":                  handle((*engine.Engine).TransactWriteItems),
	"TransactGetItems":                    handle((*engine.Engine).TransactGetItems),
	"ExecuteStatement":                    handle((*engine.Engine).ExecuteStatement),
	"BatchExecuteStatement":               handle((*engine.Engine).BatchExecuteStatement),
	"ExecuteTransaction":                  handle((*engine.Engine).ExecuteTransaction),
}

// unsupported lists the DynamoDB operations dynago does not have yet, with
// the feature each belongs to (docs/operations.md). They answer
// UnknownOperationException, as a server without them must, but with a
// message that names the operation; a target DynamoDB itself does not
// know gets DynamoDB's bare UnknownOperationException.
//
// Source of the names: the DynamoDB service model of
// @aws-sdk/client-dynamodb 3.1169.0 (late 2026: 62 operations).
var unsupported = map[string]string{
	"CreateBackup":           "on-demand backups",
	"DeleteBackup":           "on-demand backups",
	"DescribeBackup":         "on-demand backups",
	"ListBackups":            "on-demand backups",
	"RestoreTableFromBackup": "on-demand backups",

	"RestoreTableToPointInTime": "point-in-time restore",

	"ExportTableToPointInTime": "exports",
	"DescribeExport":           "exports",
	"ListExports":              "exports",
	"ImportTable":              "imports",
	"DescribeImport":           "imports",
	"ListImports":              "imports",

	"CreateGlobalTable":             "global tables",
	"DescribeGlobalTable":           "global tables",
	"DescribeGlobalTableSettings":   "global tables",
	"ListGlobalTables":              "global tables",
	"UpdateGlobalTable":             "global tables",
	"UpdateGlobalTableSettings":     "global tables",
	"UpdateTableReplicaAutoScaling": "global tables",

	"DeleteResourcePolicy": "resource policies",
	"GetResourcePolicy":    "resource policies",
	"PutResourcePolicy":    "resource policies",

	"DisableKinesisStreamingDestination": "Kinesis streaming destinations",
	"EnableKinesisStreamingDestination":  "Kinesis streaming destinations",
	"UpdateKinesisStreamingDestination":  "Kinesis streaming destinations",

	"StartBulkPutItems":     "bulk operations",
	"DescribeBulkOperation": "bulk operations",
	"ListBulkOperations":    "bulk operations",
	"CancelBulkOperation":   "bulk operations",

	"SearchVectors": "vector search",
}

// unsupportedError is the answer to a DynamoDB operation dynago does not
// have yet.
func unsupportedError(op, feature string) error {
	return ddberr.New(ddberr.UnknownOperationException,
		op+" is a DynamoDB operation ("+feature+") that dynago does not support yet; docs/operations.md lists what it supports")
}

// streamOps is the DynamoDB Streams routing table (X-Amz-Target
// DynamoDBStreams_20120810.<operation>), served on the same endpoint.
var streamOps = map[string]opFunc{
	"ListStreams":      handle((*engine.Engine).ListStreams),
	"DescribeStream":   handle((*engine.Engine).DescribeStream),
	"GetShardIterator": handle((*engine.Engine).GetShardIterator),
	"GetRecords":       handle((*engine.Engine).GetRecords),
}

// handle adapts an engine method to an opFunc: decode the body strictly,
// prepare without the table (api.Request: check the request, parse its
// expressions), then run.
func handle[P any, I interface {
	*P
	api.Request
}, O output](fn func(*engine.Engine, context.Context, I) (O, error)) opFunc {
	decode := func(body []byte, dec api.DecodeOptions) (any, error) {
		in := I(new(P))
		if err := api.DecodeInputWith(body, in, dec); err != nil {
			return nil, err
		}
		if err := in.Prepare(); err != nil {
			return nil, err
		}
		return in, nil
	}
	run := func(ctx context.Context, e *engine.Engine, in any) (output, error) {
		out, err := fn(e, ctx, in.(I))
		return out, err
	}
	return opFunc{decode, run}
}
