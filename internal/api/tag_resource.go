package api

import "github.com/dynago/dynago/internal/wire"

// TagResourceInput is the TagResource request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TagResource.html
type TagResourceInput struct {
	ResourceArn *string
	Tags        []Tag
	hasTags     bool
}

// Decode implements Input.
func (in *TagResourceInput) Decode(r *wire.Reader) error {
	_, err := object(r, "TagResourceInput", func(k string) error {
		switch k {
		case "ResourceArn":
			return readString(r, &in.ResourceArn)
		case "Tags":
			in.hasTags = true
			return decodeTags(r, &in.Tags)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the members' constraints: an ARN of 1 to 1,283
// characters, and tags with keys of 1 to 128 and values of at most 256.
func (in *TagResourceInput) Prepare() error {
	var c constraints
	c.length("resourceArn", in.ResourceArn, 1, 1283, true)
	if !in.hasTags {
		c.add("", true, "tags", "Member must not be null")
	}
	tagConstraints(&c, in.Tags)
	return c.err()
}
