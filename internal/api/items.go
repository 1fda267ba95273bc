package api

import (
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
	"maps"
	"slices"
)

// CommonWrite holds the members PutItem, DeleteItem and UpdateItem share.
type CommonWrite struct {
	TableName                           *string
	ConditionExpression                 *string
	ExpressionParams                    ExpressionParams
	Expected                            map[string]expr.LegacyCondition
	ConditionalOperator                 *string
	ReturnValues                        *string
	ReturnConsumedCapacity              *string
	ReturnItemCollectionMetrics         *string
	ReturnValuesOnConditionCheckFailure *string

	// Condition is the parsed ConditionExpression (or converted
	// Expected), nil when the request has none. Set by Validate.
	Condition expr.Expr

	// older is set when DynamoDB reads the request in its older form
	// (olderReadingDepth).
	older bool
}

// olderReadingDepth is the JSON nesting past which PutItem, UpdateItem
// and DeleteItem read a request in an older form: ConditionalOperator and
// ReturnValues are checked in their older per-value wording ahead of the
// nesting error of a deep value, and expressions are parsed before the
// item's values are checked. Past about 62 levels of single-key map
// wrappers (2 JSON levels each) DynamoDB switches; a value 40 levels deep
// stays in the newer form. Source: the conformance suite's
// tests/tier3/validation-ordering/deepRequests.test.ts (eu-west-2 and
// us-east-1, 2026-10-09; 63 and 100 levels older, 33 and 40 newer).
const olderReadingDepth = 128

func (w *CommonWrite) keepDepth(d int) { w.older = d > olderReadingDepth }

func (w *CommonWrite) decodeMember(r *wire.Reader, k string) (bool, error) {
	if ok, err := w.ExpressionParams.decodeMember(r, k); ok {
		return true, err
	}
	switch k {
	case "TableName":
		return true, readString(r, &w.TableName)
	case "ConditionExpression":
		return true, readString(r, &w.ConditionExpression)
	case "Expected":
		return true, decodeLegacyConditions(r, "ExpectedAttributeValue", &w.Expected)
	case "ConditionalOperator":
		return true, readString(r, &w.ConditionalOperator)
	case "ReturnValues":
		return true, readString(r, &w.ReturnValues)
	case "ReturnConsumedCapacity":
		return true, readString(r, &w.ReturnConsumedCapacity)
	case "ReturnItemCollectionMetrics":
		return true, readString(r, &w.ReturnItemCollectionMetrics)
	case "ReturnValuesOnConditionCheckFailure":
		return true, readString(r, &w.ReturnValuesOnConditionCheckFailure)
	}
	return false, nil
}

// constraints adds the member constraints shared by the write operations.
// ConditionalOperator is one of them only in the older reading; the newer
// one checks it first, on its own (newerConditionalOperator).
func (w *CommonWrite) constraints(c *constraints) {
	dataTableName(c, w.TableName)
	c.enum("returnConsumedCapacity", w.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	c.enum("returnItemCollectionMetrics", w.ReturnItemCollectionMetrics, returnItemCollectionMetricsValues...)
	c.enum("returnValues", w.ReturnValues, returnValuesValues...)
	c.enum("returnValuesOnConditionCheckFailure", w.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
	if w.older {
		c.enum("conditionalOperator", w.ConditionalOperator, olderConditionalOperatorValues...)
	}
}

// dataTableName checks the TableName of a single-item write. An empty
// name breaks only the length constraint, whose minimum is 1 (the member
// also takes a table ARN): "Value ” at 'tableName' failed to satisfy
// constraint: Member must have length greater than or equal to 1" (the
// conformance suite's tests/tier3/validation-ordering/updateItem.test.ts,
// eu-west-2 and us-east-1, 2026-10-09; error-messages/putItem.test.ts).
// Other names keep the table-name pattern and lengths.
func dataTableName(c *constraints, v *string) {
	if v != nil && *v == "" {
		c.add("", false, "tableName", "Member must have length greater than or equal to 1")
		return
	}
	c.name("tableName", v, true)
}

// newerConditionalOperator is the newer reading's answer to a
// ConditionalOperator outside its enum: bare, on its own, ahead of every
// other member error (the conformance suite's validation-ordering/
// query.test.ts, "reports XOR with two QueryFilter conditions before an
// unknown Select", eu-west-2 and us-east-1, 2026-10-09; deepRequests.test.ts
// says PutItem and UpdateItem answer this form at 33 and 40 levels).
func newerConditionalOperator(v *string) error {
	if v == nil || *v == "AND" || *v == "OR" {
		return nil
	}
	return ddberr.Validation("Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]")
}

func (w *CommonWrite) legacyParams() []string {
	var l []string
	if w.Expected != nil {
		l = append(l, "Expected")
	}
	if w.ConditionalOperator != nil {
		l = append(l, "ConditionalOperator")
	}
	return l
}

// prepareCondition validates the expression members and parses the
// condition (or converts Expected). extra lists further expression
// members of the operation (UpdateExpression), parsed by the caller with
// the returned context before CheckUnused.
func (w *CommonWrite) prepareCondition(extra ...exprParam) (*expr.Context, error) {
	exprs := append([]exprParam{{expr.ConditionExpression, w.ConditionExpression}}, extra...)
	ctx, err := w.ExpressionParams.newContext(exprs, w.legacyParams())
	if err != nil {
		return nil, err
	}
	if w.Expected != nil {
		if err := validateLegacyValues(w.Expected, attr.CurrentLayer); err != nil {
			return nil, err
		}
		op := ""
		if w.ConditionalOperator != nil {
			op = *w.ConditionalOperator
		}
		w.Condition, err = expr.LegacyToCondition(w.Expected, op, true)
		if err != nil {
			return nil, err
		}
	}
	return ctx, nil
}

// ReturnValue returns ReturnValues or "NONE".
func (w *CommonWrite) ReturnValue() string {
	if w.ReturnValues == nil {
		return "NONE"
	}
	return *w.ReturnValues
}

// ReturnOldOnConditionFailure reports whether a failed condition should
// return the item (ReturnValuesOnConditionCheckFailure=ALL_OLD).
func (w *CommonWrite) ReturnOldOnConditionFailure() bool {
	return w.ReturnValuesOnConditionCheckFailure != nil && *w.ReturnValuesOnConditionCheckFailure == "ALL_OLD"
}

// PutItemInput is the PutItem request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_PutItem.html
type PutItemInput struct {
	CommonWrite
	Item attr.Item
}

// Decode implements Input.
func (in *PutItemInput) Decode(r *wire.Reader) error {
	return in.decodeWith(r, "PutItemInput", "Item", &in.Item)
}

// Validate checks the request without the table. Its messages come in
// the single-error envelope, as DynamoDB's current validation layer sends
// them for PutItem.
func (in *PutItemInput) Validate() error { return in.validateEnvelope("item", in.Item) }

// DeleteItemInput is the DeleteItem request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteItem.html
type DeleteItemInput struct {
	CommonWrite
	Key attr.Item
}

// Decode implements Input.
func (in *DeleteItemInput) Decode(r *wire.Reader) error {
	return in.decodeWith(r, "DeleteItemInput", "Key", &in.Key)
}

// Validate checks the request without the table, in the single-error
// envelope DynamoDB uses for DeleteItem.
func (in *DeleteItemInput) Validate() error { return in.validateEnvelope("key", in.Key) }

// validateEnvelope validates a PutItem or DeleteItem. The newer reading
// checks ConditionalOperator first and puts the other messages in the
// single-error envelope; the older reading (olderReadingDepth) sends its
// messages as they are.
func (w *CommonWrite) validateEnvelope(path string, item attr.Item) error {
	if w.older {
		return w.validateWith("", path, item)
	}
	if err := newerConditionalOperator(w.ConditionalOperator); err != nil {
		return err
	}
	return envelope(w.validateWith("", path, item))
}

// decodeWith decodes a PutItem or DeleteItem request: the common write
// members and one item-shaped member, name, into dst.
func (w *CommonWrite) decodeWith(r *wire.Reader, shape, name string, dst *attr.Item) error {
	_, err := object(r, shape, func(k string) error {
		if ok, err := w.decodeMember(r, k); ok {
			return err
		}
		if k == name {
			return readItem(r, dst)
		}
		return r.Skip()
	})
	return err
}

// validateWith checks a PutItem or DeleteItem request whose item-shaped
// member (path "item" or "key") is item, in DynamoDB's order: member
// constraints, expression members, the item's values, ReturnValues (only
// NONE and ALL_OLD), then the condition. prefix is the member path of a
// transaction's action ("" for the operation itself).
func (w *CommonWrite) validateWith(prefix, path string, item attr.Item) error {
	c := constraints{prefix: prefix}
	w.constraints(&c)
	if item == nil {
		c.add("", true, path, "Member must not be null")
	}
	if err := c.err(); err != nil {
		return err
	}
	badReturnValues := func() error {
		if rv := w.ReturnValue(); rv != "NONE" && rv != "ALL_OLD" {
			return ddberr.Validation("ReturnValues can only be ALL_OLD or NONE")
		}
		return nil
	}
	// The older reading checks ReturnValues before any value
	// (deepRequests.test.ts: DeleteItem's UPDATED_NEW ahead of a condition
	// value nested 100 levels).
	if w.older {
		if err := badReturnValues(); err != nil {
			return err
		}
	}
	ctx, err := w.prepareCondition()
	if err != nil {
		return err
	}
	// A transaction's action, and the older reading, parse the condition
	// before they check the item or key (deepRequests.test.ts: a syntax
	// error or an oversized condition is reported ahead of the same
	// Delete's key nested 100 levels, ten regions).
	exprFirst := prefix != "" || w.older
	if !exprFirst {
		if err := attr.ValidateItemIn(item, w.ExpressionParams.layer); err != nil {
			return err
		}
	}
	if err := badReturnValues(); err != nil {
		return err
	}
	if w.ConditionExpression != nil {
		if w.Condition, err = ctx.ParseCondition(expr.ConditionExpression, *w.ConditionExpression); err != nil {
			return err
		}
	}
	if exprFirst {
		if err := attr.ValidateItemIn(item, w.ExpressionParams.layer); err != nil {
			return err
		}
	}
	return ctx.CheckUnused()
}

// GetItemInput is the GetItem request.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_GetItem.html
type GetItemInput struct {
	TableName              *string
	Key                    attr.Item
	ProjectionExpression   *string
	ExpressionParams       ExpressionParams
	AttributesToGet        []string
	ConsistentRead         *bool
	ReturnConsumedCapacity *string

	// Projection is the parsed ProjectionExpression or AttributesToGet;
	// nil means all attributes. Set by Validate.
	Projection []*expr.Path
}

// Decode implements Input.
func (in *GetItemInput) Decode(r *wire.Reader) error {
	_, err := object(r, "GetItemInput", func(k string) error {
		if ok, err := in.ExpressionParams.decodeMember(r, k); ok {
			return err
		}
		switch k {
		case "TableName":
			return readString(r, &in.TableName)
		case "Key":
			return readItem(r, &in.Key)
		case "ProjectionExpression":
			return readString(r, &in.ProjectionExpression)
		case "AttributesToGet":
			_, err := readStringList(r, &in.AttributesToGet)
			return err
		case "ConsistentRead":
			return readBool(r, &in.ConsistentRead)
		case "ReturnConsumedCapacity":
			return readString(r, &in.ReturnConsumedCapacity)
		}
		return r.Skip()
	})
	return err
}

// Validate checks the request without the table.
func (in *GetItemInput) Validate() error { return in.validateAt("") }

// validateAt is Validate with constraint paths under prefix (a
// TransactGetItems Get).
func (in *GetItemInput) validateAt(prefix string) error {
	c := constraints{prefix: prefix}
	c.name("tableName", in.TableName, true)
	if in.Key == nil {
		c.add("", true, "key", "Member must not be null")
	}
	c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
	if in.AttributesToGet != nil && len(in.AttributesToGet) == 0 {
		c.add("[]", false, "attributesToGet", "Member must have length greater than or equal to 1")
	}
	if err := c.err(); err != nil {
		return err
	}
	var legacy []string
	if in.AttributesToGet != nil {
		legacy = append(legacy, "AttributesToGet")
	}
	ctx, err := in.ExpressionParams.newContext([]exprParam{{expr.ProjectionExpression, in.ProjectionExpression}}, legacy)
	if err != nil {
		return err
	}
	if err := attr.ValidateItemIn(in.Key, in.ExpressionParams.layer); err != nil {
		return err
	}
	if in.Projection, err = attributesToGet(in.AttributesToGet); err != nil {
		return err
	}
	if in.ProjectionExpression != nil {
		if in.Projection, err = ctx.ParseProjection(*in.ProjectionExpression); err != nil {
			return err
		}
	}
	return ctx.CheckUnused()
}

// IsConsistent reports whether ConsistentRead was requested.
func (in *GetItemInput) IsConsistent() bool { return in.ConsistentRead != nil && *in.ConsistentRead }

// ItemOutput is the response of GetItem (member "Item") and of PutItem and
// DeleteItem (member "Attributes"). Item holds the encoded item JSON, or
// nil when there is none to return.
type ItemOutput struct {
	Member           string
	Item             []byte
	ConsumedCapacity *ConsumedCapacity
	// ItemCollectionMetrics is the encoded ItemCollectionMetrics object
	// (ReturnItemCollectionMetrics=SIZE on a table with LSIs), or nil.
	ItemCollectionMetrics []byte
}

// AppendJSON appends the response body.
func (o *ItemOutput) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	if o.Item != nil {
		dst = wire.AppendKey(dst, o.Member)
		dst = append(dst, o.Item...)
	}
	if o.ConsumedCapacity != nil {
		dst = wire.AppendKey(dst, "ConsumedCapacity")
		dst = o.ConsumedCapacity.AppendJSON(dst)
	}
	if o.ItemCollectionMetrics != nil {
		dst = wire.AppendKey(dst, "ItemCollectionMetrics")
		dst = append(dst, o.ItemCollectionMetrics...)
	}
	return append(dst, '}')
}

// WantsItemCollectionMetrics reports ReturnItemCollectionMetrics=SIZE.
func (w *CommonWrite) WantsItemCollectionMetrics() bool {
	return w.ReturnItemCollectionMetrics != nil && *w.ReturnItemCollectionMetrics == "SIZE"
}

// ConsumedCapacity is DynamoDB's ConsumedCapacity for one table.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConsumedCapacity.html
type ConsumedCapacity struct {
	TableName string
	// CapacityUnits is the total: the table's units and every index's.
	CapacityUnits float64
	ReadUnits     float64
	WriteUnits    float64
	// TableUnits are the units charged to the table itself.
	TableUnits float64
	// GSIs and LSIs are the units charged to each index touched, by name.
	GSIs, LSIs map[string]float64
	// Indexes adds the breakdown (ReturnConsumedCapacity=INDEXES).
	Indexes bool
	// Split adds ReadCapacityUnits and WriteCapacityUnits (the nonzero
	// ones), as DynamoDB reports them for transactions only
	// (docs/research-capacity.md §1); index units count as writes.
	Split bool
}

// AddIndex charges units to the named index.
func (c *ConsumedCapacity) AddIndex(name string, local bool, units float64) {
	m := &c.GSIs
	if local {
		m = &c.LSIs
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[name] += units
	c.CapacityUnits += units
}

// AppendJSON appends the ConsumedCapacity object: TableName and
// CapacityUnits, plus the per-table breakdown for INDEXES.
func (c *ConsumedCapacity) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"TableName":`...)
	dst = wire.AppendString(dst, c.TableName)
	dst = append(dst, `,"CapacityUnits":`...)
	dst = wire.AppendFloat(dst, c.CapacityUnits)
	dst = c.appendSplit(dst, c.ReadUnits, c.CapacityUnits-c.ReadUnits)
	if c.Indexes {
		dst = append(dst, `,"Table":{"CapacityUnits":`...)
		dst = wire.AppendFloat(dst, c.TableUnits)
		dst = c.appendSplit(dst, c.ReadUnits, c.WriteUnits)
		dst = append(dst, '}')
		dst = c.appendIndexUnits(dst, "LocalSecondaryIndexes", c.LSIs)
		dst = c.appendIndexUnits(dst, "GlobalSecondaryIndexes", c.GSIs)
	}
	return append(dst, '}')
}

// appendSplit appends the nonzero ReadCapacityUnits and
// WriteCapacityUnits when c is Split.
func (c *ConsumedCapacity) appendSplit(dst []byte, read, write float64) []byte {
	if !c.Split {
		return dst
	}
	if read != 0 {
		dst = append(dst, `,"ReadCapacityUnits":`...)
		dst = wire.AppendFloat(dst, read)
	}
	if write != 0 {
		dst = append(dst, `,"WriteCapacityUnits":`...)
		dst = wire.AppendFloat(dst, write)
	}
	return dst
}

func (c *ConsumedCapacity) appendIndexUnits(dst []byte, member string, m map[string]float64) []byte {
	if len(m) == 0 {
		return dst
	}
	dst = append(dst, `,"`...)
	dst = append(dst, member...)
	dst = append(dst, `":{`...)
	for i, name := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = wire.AppendString(dst, name)
		dst = append(dst, `:{"CapacityUnits":`...)
		dst = wire.AppendFloat(dst, m[name])
		dst = c.appendSplit(dst, 0, m[name])
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// decodeLegacyConditions decodes Expected, QueryFilter, ScanFilter or
// KeyConditions.
func decodeLegacyConditions(r *wire.Reader, typ string, dst *map[string]expr.LegacyCondition) error {
	m := map[string]expr.LegacyCondition{}
	ok, err := r.Object("Map<"+typ+">", func(name string) error {
		var c expr.LegacyCondition
		_, err := object(r, typ, func(k string) error {
			switch k {
			case "ComparisonOperator":
				return readString(r, &c.ComparisonOperator)
			case "AttributeValueList":
				list := []attr.Value{}
				ok, err := r.Array("List", func(int) error {
					v, err := attr.ReadValue(r)
					list = append(list, v)
					return err
				})
				if ok {
					c.AttributeValueList = list
				}
				return err
			case "Value":
				if r.Peek() == wire.Null {
					return r.Skip()
				}
				v, err := attr.ReadValue(r)
				c.Value = &v
				return err
			case "Exists":
				return readBool(r, &c.Exists)
			}
			return r.Skip()
		})
		m[name] = c
		return err
	})
	if ok {
		*dst = m
	}
	return err
}

// validateLegacyValues validates the attribute values of legacy
// conditions in place.
func validateLegacyValues(conds map[string]expr.LegacyCondition, l attr.Layer) error {
	for name, c := range conds {
		for i, v := range c.AttributeValueList {
			nv, err := attr.ValidateIn(v, l)
			if err != nil {
				return err
			}
			c.AttributeValueList[i] = nv
		}
		if c.Value != nil {
			nv, err := attr.ValidateIn(*c.Value, l)
			if err != nil {
				return err
			}
			c.Value = &nv
		}
		conds[name] = c
	}
	return nil
}
