package api

import "github.com/dynago/dynago/internal/wire"

// ListTagsOfResourceInput is the ListTagsOfResource request. DynamoDB
// returns every tag in one page and ignores NextToken.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ListTagsOfResource.html
type ListTagsOfResourceInput struct {
	ResourceArn *string
	NextToken   *string
}

// Decode implements Input.
func (in *ListTagsOfResourceInput) Decode(r *wire.Reader) error {
	_, err := object(r, "ListTagsOfResourceInput", func(k string) error {
		switch k {
		case "ResourceArn":
			return readString(r, &in.ResourceArn)
		case "NextToken":
			return readString(r, &in.NextToken)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints.
func (in *ListTagsOfResourceInput) Prepare() error {
	var c constraints
	c.length("resourceArn", in.ResourceArn, 1, 1283, true)
	return c.err()
}

// ListTagsOfResourceOutput is the ListTagsOfResource response: every tag
// ([] when none), no NextToken.
type ListTagsOfResourceOutput struct {
	Tags [][2]string
}

// AppendJSON appends the response body.
func (o *ListTagsOfResourceOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Tags":[`...)
	for i, t := range o.Tags {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"Key":`...)
		dst = wire.AppendString(dst, t[0])
		dst = append(dst, `,"Value":`...)
		dst = wire.AppendString(dst, t[1])
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}
