package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// ReadRequest holds the members Query and Scan share.
type ReadRequest struct {
	TableName              *string
	IndexName              *string
	FilterExpression       *string
	ProjectionExpression   *string
	ExpressionParams       ExpressionParams
	Select                 *string
	Limit                  *int64
	ExclusiveStartKey      attr.Item
	ConsistentRead         *bool
	ReturnConsumedCapacity *string
	AttributesToGet        []string
	ConditionalOperator    *string
	// Filter holds QueryFilter or ScanFilter.
	LegacyFilter map[string]expr.LegacyCondition

	// Filter is the parsed FilterExpression (or converted LegacyFilter),
	// Projection the parsed ProjectionExpression or AttributesToGet (nil:
	// every attribute). Set by Prepare.
	Filter     expr.Expr
	Projection []*expr.Path

	// MaxBytes, when above 0, ends the page once it has read that many
	// bytes of items instead of DynamoDB's 1 MB (never more): a PartiQL
	// SELECT over several partitions shares one 1 MB between their
	// Queries. Not on the wire.
	MaxBytes int
}

func (rr *ReadRequest) decodeMember(r *wire.Reader, k, filterName string) (bool, error) {
	if ok, err := rr.ExpressionParams.decodeMember(r, k); ok {
		return true, err
	}
	switch k {
	case "TableName":
		return true, readString(r, &rr.TableName)
	case "IndexName":
		return true, readString(r, &rr.IndexName)
	case "FilterExpression":
		return true, readString(r, &rr.FilterExpression)
	case "ProjectionExpression":
		return true, readString(r, &rr.ProjectionExpression)
	case "Select":
		return true, readString(r, &rr.Select)
	case "Limit":
		return true, readInt(r, "Integer", &rr.Limit)
	case "ExclusiveStartKey":
		return true, readItem(r, &rr.ExclusiveStartKey)
	case "ConsistentRead":
		return true, readBool(r, &rr.ConsistentRead)
	case "ReturnConsumedCapacity":
		return true, readString(r, &rr.ReturnConsumedCapacity)
	case "AttributesToGet":
		_, err := readStringList(r, &rr.AttributesToGet)
		return true, err
	case "ConditionalOperator":
		return true, readString(r, &rr.ConditionalOperator)
	case filterName:
		return true, decodeLegacyConditions(r, "Condition", &rr.LegacyFilter)
	}
	return false, nil
}

// constraints adds Query's and Scan's member constraints. Query (newer
// is set) runs the newer layer: its Limit error names the member without
// its value, "Value at 'Limit' failed to satisfy constraint: ..." (the
// conformance suite's error-messages/query.test.ts), where Scan keeps
// "Value '0' at 'limit'" (error-messages/scan.test.ts), and it checks
// ConditionalOperator before these (newerConditionalOperator), where Scan
// lists it among them in the older wording.
func (rr *ReadRequest) constraints(c *constraints, newer bool) {
	c.name("tableName", rr.TableName, true)
	c.name("indexName", rr.IndexName, false)
	if newer && rr.Limit != nil && *rr.Limit < 1 {
		c.list = append(c.list, "Value at '"+c.prefix+"Limit' failed to satisfy constraint: Member must have value greater than or equal to 1")
	} else {
		c.min("limit", rr.Limit, 1)
	}
	c.enum("select", rr.Select, selectValues...)
	c.enum("returnConsumedCapacity", rr.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	if !newer {
		c.enum("conditionalOperator", rr.ConditionalOperator, olderConditionalOperatorValues...)
	}
	if rr.AttributesToGet != nil && len(rr.AttributesToGet) == 0 {
		c.add("[]", false, "attributesToGet", "Member must have length greater than or equal to 1")
	}
}

// legacyParams lists the legacy members present, in DynamoDB's order.
func (rr *ReadRequest) legacyParams(filterName string) []string {
	var l []string
	if rr.AttributesToGet != nil {
		l = append(l, "AttributesToGet")
	}
	if rr.LegacyFilter != nil {
		l = append(l, filterName)
	}
	if rr.ConditionalOperator != nil {
		l = append(l, "ConditionalOperator")
	}
	return l
}

// validateSelect applies DynamoDB's rules on Select versus projections.
func (rr *ReadRequest) validateSelect() error {
	if rr.Select == nil {
		return nil
	}
	hasPE := rr.ProjectionExpression != nil
	hasATG := rr.AttributesToGet != nil
	switch *rr.Select {
	case "ALL_ATTRIBUTES":
		if hasPE {
			return ddberr.Validation("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES")
		}
		if hasATG {
			return ddberr.Validation("Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES")
		}
	case "COUNT":
		if hasPE {
			return ddberr.Validation("Cannot specify the ProjectionExpression when choosing to get only the Count")
		}
		if hasATG {
			return ddberr.Validation("Cannot specify the AttributesToGet when choosing to get only the Count")
		}
	case "ALL_PROJECTED_ATTRIBUTES":
		if hasPE {
			return ddberr.Validation("Cannot specify the ProjectionExpression when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
		if hasATG {
			return ddberr.Validation("Cannot specify the AttributesToGet when choosing to get ALL_PROJECTED_ATTRIBUTES")
		}
		if rr.IndexName == nil {
			return ddberr.Validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	case "SPECIFIC_ATTRIBUTES":
		if !hasPE && !hasATG {
			return ddberr.Validation("Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	}
	return nil
}

// finish validates the ExclusiveStartKey values, the legacy filter and
// projection, and parses the filter and projection expressions.
func (rr *ReadRequest) finish(ctx *expr.Context) error {
	for _, name := range rr.ExclusiveStartKey.SortedNames() {
		v, err := attr.ValidateIn(rr.ExclusiveStartKey[name], rr.ExpressionParams.layer)
		if err != nil {
			// A malformed number or a duplicate set member is answered
			// bare, other faults behind the starting-key prefix (the
			// conformance suite's valueLayers.test.ts, Query, 2026-10-09;
			// dynalite's query.js, checked against DynamoDB).
			if attr.Bare(err) {
				return err
			}
			return ddberr.Validation("The provided starting key is invalid: " + messageOf(err))
		}
		rr.ExclusiveStartKey[name] = v
	}
	var err error
	if rr.LegacyFilter != nil {
		if err := validateLegacyValues(rr.LegacyFilter, rr.ExpressionParams.layer); err != nil {
			return err
		}
		op := ""
		if rr.ConditionalOperator != nil {
			op = *rr.ConditionalOperator
		}
		if rr.Filter, err = expr.LegacyToCondition(rr.LegacyFilter, op, false); err != nil {
			return err
		}
	}
	if rr.Projection, err = attributesToGet(rr.AttributesToGet); err != nil {
		return err
	}
	if rr.FilterExpression != nil {
		if rr.Filter, err = ctx.ParseCondition(expr.FilterExpression, *rr.FilterExpression); err != nil {
			return err
		}
	}
	if rr.ProjectionExpression != nil {
		if rr.Projection, err = ctx.ParseProjection(*rr.ProjectionExpression); err != nil {
			return err
		}
	}
	return ctx.CheckUnused()
}

// SelectValue returns Select, defaulting to SPECIFIC_ATTRIBUTES when a
// projection is given, else ALL_PROJECTED_ATTRIBUTES on an index and
// ALL_ATTRIBUTES on a table.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html#DDB-Query-request-Select
func (rr *ReadRequest) SelectValue() string {
	if rr.Select != nil {
		return *rr.Select
	}
	if rr.Projection != nil {
		return "SPECIFIC_ATTRIBUTES"
	}
	if rr.IndexName != nil {
		return "ALL_PROJECTED_ATTRIBUTES"
	}
	return "ALL_ATTRIBUTES"
}

// IsConsistent reports whether ConsistentRead was requested.
func (rr *ReadRequest) IsConsistent() bool { return rr.ConsistentRead != nil && *rr.ConsistentRead }

// ReadOutput is the response of Query and Scan; Items is omitted for
// Select=COUNT.
//
// Body holds the start of the response body, `{"Items":[` followed by the
// encoded items joined by commas, so that items are copied once, from
// storage straight into the response. Use StartItems and AddItem to fill
// it.
type ReadOutput struct {
	Body         []byte
	nItems       int
	Count        int
	ScannedCount int
	// ReadBytes is the item data the page read, before any filter or
	// projection (what its 1 MB limit counts). Not on the wire.
	ReadBytes        int
	CountOnly        bool
	LastEvaluatedKey attr.Item
	ConsumedCapacity *ConsumedCapacity
}

const itemsPrefix = `{"Items":[`

// StartItems prepares Body for about sizeHint bytes of items.
func (o *ReadOutput) StartItems(sizeHint int) {
	o.Body = append(make([]byte, 0, len(itemsPrefix)+sizeHint+128), itemsPrefix...)
}

// AddItem appends one encoded item to the Items array.
func (o *ReadOutput) AddItem(item []byte) {
	if o.Body == nil {
		o.StartItems(len(item) * 8)
	}
	if o.nItems > 0 {
		o.Body = append(o.Body, ',')
	}
	o.Body = append(o.Body, item...)
	o.nItems++
}

// AppendJSON appends the response body. With an empty dst it extends Body
// in place instead of copying it.
func (o *ReadOutput) AppendJSON(dst []byte) []byte {
	if !o.CountOnly {
		if o.Body == nil {
			o.StartItems(0)
		}
		if len(dst) == 0 {
			dst = o.Body
		} else {
			dst = append(dst, o.Body...)
		}
		dst = append(dst, "],"...)
	} else {
		dst = append(dst, '{')
	}
	dst = append(dst, `"Count":`...)
	dst = wire.AppendInt(dst, int64(o.Count))
	dst = append(dst, `,"ScannedCount":`...)
	dst = wire.AppendInt(dst, int64(o.ScannedCount))
	if o.LastEvaluatedKey != nil {
		dst = append(dst, `,"LastEvaluatedKey":`...)
		dst = attr.AppendItem(dst, o.LastEvaluatedKey)
	}
	if o.ConsumedCapacity != nil {
		dst = append(dst, `,"ConsumedCapacity":`...)
		dst = o.ConsumedCapacity.AppendJSON(dst)
	}
	return append(dst, '}')
}
