package api

// DeleteTableInput is the DeleteTable request: the table's name.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html
type DeleteTableInput struct{ TableNameInput }
