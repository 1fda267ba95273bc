package api

import (
	"strconv"

	"github.com/dynago/dynago/internal/wire"
)

// The tagging operations. Shapes and messages: docs/research-tags.md.

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

// Validate checks the members' constraints: an ARN of 1 to 1,283
// characters, and tags with keys of 1 to 128 and values of at most 256.
func (in *TagResourceInput) Validate() error {
	var c constraints
	c.length("resourceArn", in.ResourceArn, 1, 1283, true)
	if !in.hasTags {
		c.add("", true, "tags", "Member must not be null")
	}
	tagConstraints(&c, in.Tags)
	return c.err()
}

// UntagResourceInput is the UntagResource request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UntagResource.html
type UntagResourceInput struct {
	ResourceArn *string
	TagKeys     []string
	hasKeys     bool
}

// Decode implements Input.
func (in *UntagResourceInput) Decode(r *wire.Reader) error {
	_, err := object(r, "UntagResourceInput", func(k string) error {
		switch k {
		case "ResourceArn":
			return readString(r, &in.ResourceArn)
		case "TagKeys":
			ok, err := readStringList(r, &in.TagKeys)
			in.hasKeys = in.hasKeys || ok
			return err
		}
		return r.Skip()
	})
	return err
}

// Validate checks the members' constraints.
func (in *UntagResourceInput) Validate() error {
	var c constraints
	c.length("resourceArn", in.ResourceArn, 1, 1283, true)
	if !in.hasKeys {
		c.add("", true, "tagKeys", "Member must not be null")
	}
	for i := range in.TagKeys {
		c.length("tagKeys."+strconv.Itoa(i+1)+".member", &in.TagKeys[i], 1, maxTagKeyLength, true)
	}
	return c.err()
}

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

// Validate checks the members' constraints.
func (in *ListTagsOfResourceInput) Validate() error {
	var c constraints
	c.length("resourceArn", in.ResourceArn, 1, 1283, true)
	return c.err()
}

// EmptyOutput is the body of an operation that answers nothing
// (TagResource, UntagResource): {}.
type EmptyOutput struct{}

// AppendJSON appends the response body.
func (EmptyOutput) AppendJSON(dst []byte) []byte { return append(dst, "{}"...) }

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
