package api

// Batch limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html
// and https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html
//
// MaxBatchGetBytes is 16 MB in decimal units: the API reference's example
// (100 items of 300 KB return 52) holds only for a 16,000,000-byte limit
// that the crossing item does not enter.
const (
	MaxBatchGetKeys      = 100
	MaxBatchWriteItems   = 25
	MaxBatchGetBytes     = 16_000_000
	MaxBatchRequestBytes = 16 << 20
)

// msgEmptyRequestItems answers an empty RequestItems map in BatchGetItem
// and BatchWriteItem.
const msgEmptyRequestItems = "1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must have length greater than or equal to 1"
