package api

// DescribeContinuousBackupsInput is the DescribeContinuousBackups
// request: a table name or table ARN. Its response is
// ContinuousBackupsOutput, as UpdateContinuousBackups'.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeContinuousBackups.html
type DescribeContinuousBackupsInput struct{ TableArnInput }
