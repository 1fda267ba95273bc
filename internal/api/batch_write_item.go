package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// WriteRequest is one PutRequest or DeleteRequest of BatchWriteItem.
type WriteRequest struct {
	Put    attr.Item // PutRequest.Item
	Delete attr.Item // DeleteRequest.Key
	// HasPut and HasDelete record which members were present.
	HasPut, HasDelete bool
}

// BatchWriteItemInput is the BatchWriteItem request. It has no
// expressions; Prepare canonicalises the values of every Put item and
// Delete key.
type BatchWriteItemInput struct {
	RequestItems                map[string][]WriteRequest
	Tables                      []string
	ReturnConsumedCapacity      *string
	ReturnItemCollectionMetrics *string
}

// Decode implements Input.
func (in *BatchWriteItemInput) Decode(r *wire.Reader) error {
	_, err := object(r, "BatchWriteItemInput", func(k string) error {
		switch k {
		case "RequestItems":
			m := map[string][]WriteRequest{}
			ok, err := r.Object("Map<List<WriteRequest>>", func(table string) error {
				list := []WriteRequest{}
				_, err := r.Array("List", func(int) error {
					var wr WriteRequest
					_, err := object(r, "WriteRequest", func(k string) error {
						switch k {
						case "PutRequest":
							if r.Peek() == wire.Null {
								return r.Skip()
							}
							wr.HasPut = true
							_, err := object(r, "PutRequest", func(k string) error {
								if k == "Item" {
									return readItem(r, &wr.Put)
								}
								return r.Skip()
							})
							return err
						case "DeleteRequest":
							if r.Peek() == wire.Null {
								return r.Skip()
							}
							wr.HasDelete = true
							_, err := object(r, "DeleteRequest", func(k string) error {
								if k == "Key" {
									return readItem(r, &wr.Delete)
								}
								return r.Skip()
							})
							return err
						}
						return r.Skip()
					})
					list = append(list, wr)
					return err
				})
				if _, dup := m[table]; !dup {
					in.Tables = append(in.Tables, table)
				}
				m[table] = list
				return err
			})
			if ok {
				in.RequestItems = m
			}
			return err
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		case "ReturnItemCollectionMetrics":
			return readString(r, &in.ReturnItemCollectionMetrics)
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the request without the tables.
func (in *BatchWriteItemInput) Prepare() error {
	var c constraints
	if in.RequestItems == nil {
		c.add("", true, "requestItems", "Member must not be null")
	} else if len(in.RequestItems) == 0 {
		// DynamoDB has answered both this and "The requestItems parameter
		// is required for BatchWriteItem"; BatchGetItem settled on this
		// one (docs/dynamodb-behaviour.md §6.1, §6.2).
		return ddberr.Validation(msgEmptyRequestItems)
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, returnItemCollectionMetricsValues...)
	if err := c.err(); err != nil {
		return err
	}
	for _, t := range in.Tables {
		if !namePattern.MatchString(t) || len(t) < 3 || len(t) > 255 {
			return ddberr.Validation("1 validation error detected: Value '" + writeItemsString(in) + "' at 'requestItems' failed to satisfy constraint: Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must have length greater than or equal to 3, Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+]")
		}
		n := len(in.RequestItems[t])
		if n == 0 || n > MaxBatchWriteItems {
			return ddberr.Validation("1 validation error detected: Value '" + writeItemsString(in) + "' at 'requestItems' failed to satisfy constraint: Map value must satisfy constraint: [Member must have length less than or equal to 25, Member must have length greater than or equal to 1]")
		}
	}
	total := 0
	for _, t := range in.Tables {
		total += len(in.RequestItems[t])
	}
	if total > MaxBatchWriteItems {
		return ddberr.Validation("Too many items requested for the BatchWriteItem call")
	}
	for _, t := range in.Tables {
		for i, wr := range in.RequestItems[t] {
			if wr.HasPut == wr.HasDelete {
				return ddberr.Validation("Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes")
			}
			if wr.HasPut && wr.Put == nil {
				return ddberr.Validationf("1 validation error detected: Value null at 'requestItems.%s.member.%d.member.putRequest.item' failed to satisfy constraint: Member must not be null", t, i+1)
			}
			if wr.HasDelete && wr.Delete == nil {
				return ddberr.Validationf("1 validation error detected: Value null at 'requestItems.%s.member.%d.member.deleteRequest.key' failed to satisfy constraint: Member must not be null", t, i+1)
			}
			item := wr.Put
			if wr.HasDelete {
				item = wr.Delete
			}
			if err := attr.ValidateItemIn(item, attr.OlderLayer); err != nil {
				return err
			}
		}
	}
	return nil
}

// WantsItemCollectionMetrics reports ReturnItemCollectionMetrics=SIZE.
func (in *BatchWriteItemInput) WantsItemCollectionMetrics() bool {
	return in.ReturnItemCollectionMetrics != nil && *in.ReturnItemCollectionMetrics == "SIZE"
}

// BatchWriteItemOutput is the BatchWriteItem response; Unprocessed holds
// each table's unprocessed WriteRequests as encoded JSON.
type BatchWriteItemOutput struct {
	Unprocessed      map[string][][]byte
	ConsumedCapacity []*ConsumedCapacity
	// ItemCollectionMetrics holds, per table with LSIs, the encoded
	// ItemCollectionMetrics of each write (ReturnItemCollectionMetrics=SIZE).
	ItemCollectionMetrics map[string][][]byte
}

// AppendJSON appends the response body.
func (o *BatchWriteItemOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"UnprocessedItems":`...)
	dst = appendTableLists(dst, o.Unprocessed)
	dst = appendCapacities(dst, o.ConsumedCapacity)
	if len(o.ItemCollectionMetrics) > 0 {
		dst = append(dst, `,"ItemCollectionMetrics":`...)
		dst = appendTableLists(dst, o.ItemCollectionMetrics)
	}
	return append(dst, '}')
}
