package api

// DescribeTableReplicaAutoScalingInput is the
// DescribeTableReplicaAutoScaling request: a table name or table ARN.
// dynago has no global tables, so the operation always answers
// ResourceNotFoundException, as DynamoDB does for a regional table; its
// output type is EmptyOutput.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTableReplicaAutoScaling.html
type DescribeTableReplicaAutoScalingInput struct{ TableArnInput }
