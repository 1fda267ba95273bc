package api

import (
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// Tags, as CreateTable and TagResource take them. Shapes and messages of
// the tagging operations: docs/research-tags.md.

// Tag is a resource tag.
type Tag struct {
	Key   *string
	Value *string
}

func decodeTags(r *wire.Reader, dst *[]Tag) error {
	list := []Tag{}
	ok, err := r.Array("List", func(int) error {
		var t Tag
		_, err := object(r, "Tag", func(k string) error {
			switch k {
			case "Key":
				return readString(r, &t.Key)
			case "Value":
				return readString(r, &t.Value)
			}
			return r.Skip()
		})
		list = append(list, t)
		return err
	})
	if ok {
		*dst = list
	}
	return err
}

// Tag limits.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Tagging.html
const (
	maxTags           = 50
	maxTagKeyLength   = 128
	maxTagValueLength = 256
)

func tagConstraints(c *constraints, tags []Tag) {
	for i, t := range tags {
		p := "tags." + strconv.Itoa(i+1) + ".member."
		if t.Key == nil {
			c.add("", true, p+"key", "Member must not be null")
		} else {
			if charLen(*t.Key) < 1 {
				c.add(*t.Key, false, p+"key", "Member must have length greater than or equal to 1")
			}
			if charLen(*t.Key) > maxTagKeyLength {
				c.add(*t.Key, false, p+"key", "Member must have length less than or equal to 128")
			}
		}
		if t.Value == nil {
			c.add("", true, p+"value", "Member must not be null")
		} else if charLen(*t.Value) > maxTagValueLength {
			c.add(*t.Value, false, p+"value", "Member must have length less than or equal to 256")
		}
	}
}

// validateTags applies the tag rules that are not member constraints.
func validateTags(tags []Tag) error {
	if len(tags) > maxTags {
		return ddberr.New(ddberr.LimitExceededException, "Too many tags for the resource")
	}
	for _, t := range tags {
		if strings.HasPrefix(*t.Key, "aws:") {
			return ddberr.Validation("One or more parameter values were invalid: Tag keys starting with 'aws:' are reserved for system use")
		}
	}
	return nil
}
