package api

import (
	"strconv"

	"github.com/dynago/dynago/internal/wire"
)

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

// Prepare checks the members' constraints.
func (in *UntagResourceInput) Prepare() error {
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
