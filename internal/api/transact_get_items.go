package api

import (
	"strconv"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/wire"
)

// TransactGetItemsInput is the TransactGetItems request; each Get is a
// GetItem without ConsistentRead (transactional reads are serializable),
// whose Projection Prepare sets.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
type TransactGetItemsInput struct {
	Gets                   []*GetItemInput
	ReturnConsumedCapacity *string
	hasItems               bool
	missingGet             bool
}

// Decode implements Input.
func (in *TransactGetItemsInput) Decode(r *wire.Reader) error {
	_, err := object(r, "TransactGetItemsInput", func(k string) error {
		switch k {
		case "TransactItems":
			list := []*GetItemInput{}
			ok, err := r.Array("List", func(int) error {
				var g *GetItemInput
				_, err := object(r, "TransactGetItem", func(k string) error {
					if k == "Get" {
						return decodeAction(r, &g, func(a *GetItemInput) error { return a.Decode(r) })
					}
					return r.Skip()
				})
				if g == nil {
					in.missingGet = true
				}
				list = append(list, g)
				return err
			})
			if ok {
				in.Gets, in.hasItems = list, true
			}
			return err
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		}
		return r.Skip()
	})
	return err
}

// Prepare applies TransactGetItems' checks that need no table and
// prepares each Get as GetItem does.
func (in *TransactGetItemsInput) Prepare() error {
	var c constraints
	if !in.hasItems {
		c.add("", true, "transactItems", "Member must not be null")
	} else {
		if len(in.Gets) < 1 {
			c.add("[]", false, "transactItems", "Member must have length greater than or equal to 1")
		}
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	for i, g := range in.Gets {
		if g == nil {
			c.add("", true, "transactItems."+strconv.Itoa(i+1)+".member.get", "Member must not be null")
		}
	}
	if err := c.err(); err != nil {
		return err
	}
	if err := tooManyItems(len(in.Gets)); err != nil {
		return err
	}
	for i, g := range in.Gets {
		g.ExpressionParams.layer = attr.OlderLayer // as TransactWriteItems
		if err := g.prepareAt("transactItems." + strconv.Itoa(i+1) + ".member.get."); err != nil {
			return err
		}
	}
	return nil
}

// TransactGetItemsOutput is the TransactGetItems response: per Get, in
// order, {"Item": ...} or {} for a missing item.
type TransactGetItemsOutput struct {
	Responses        [][]byte // item JSON, nil when absent
	ConsumedCapacity []*ConsumedCapacity
}

// AppendJSON appends the response body.
func (o *TransactGetItemsOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"Responses":[`...)
	for i, item := range o.Responses {
		if i > 0 {
			dst = append(dst, ',')
		}
		if item == nil {
			dst = append(dst, `{}`...)
			continue
		}
		dst = append(dst, `{"Item":`...)
		dst = append(dst, item...)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	dst = appendCapacities(dst, o.ConsumedCapacity)
	return append(dst, '}')
}
