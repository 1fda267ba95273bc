package api

// DescribeTableInput is the DescribeTable request: the table's name.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTable.html
type DescribeTableInput struct{ TableNameInput }
