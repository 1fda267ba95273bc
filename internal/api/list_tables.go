package api

import "github.com/dynago/dynago/internal/wire"

// ListTablesInput is the ListTables request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTables.html
type ListTablesInput struct {
	ExclusiveStartTableName *string
	Limit                   *int64
}

// Decode implements Input.
func (in *ListTablesInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ListTablesInput", func(k string) error {
		switch k {
		case "ExclusiveStartTableName":
			return readString(r, &in.ExclusiveStartTableName)
		case "Limit":
			return readInt(r, "Integer", &in.Limit)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks Limit (1..100) and the start name.
func (in *ListTablesInput) Prepare() error {
	var c constraints
	c.min("limit", in.Limit, 1)
	c.max("limit", in.Limit, 100)
	c.name("exclusiveStartTableName", in.ExclusiveStartTableName, false)
	return c.err()
}

// ListTablesOutput is the ListTables response.
type ListTablesOutput struct {
	TableNames             []string
	LastEvaluatedTableName string
}

// AppendJSON appends the response body.
func (o *ListTablesOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableNames":[`...)
	for i, n := range o.TableNames {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, n)
	}
	dst = append(dst, ']')
	if o.LastEvaluatedTableName != "" {
		dst = append(dst, `,"LastEvaluatedTableName":`...)
		dst = wire.AppendString(dst, o.LastEvaluatedTableName)
	}
	return append(dst, '}')
}
