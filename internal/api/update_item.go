package api

import (
	"sort"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// UpdateItemInput is the UpdateItem request. Prepare sets Update (from
// UpdateExpression) and Condition (from ConditionExpression or
// Expected), and canonicalises the values of Key and AttributeUpdates.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html
type UpdateItemInput struct {
	CommonWrite
	Key              attr.Item
	UpdateExpression *string
	AttributeUpdates map[string]expr.LegacyUpdate

	// Update is the parsed UpdateExpression (nil with AttributeUpdates or
	// no update at all). Set by Prepare.
	Update *expr.Update
}

// Decode implements Input.
func (in *UpdateItemInput) Decode(r *wire.Reader) error {
	_, err := object(r, "UpdateItemInput", func(k string) error {
		if ok, err := in.decodeMember(r, k); ok {
			return err
		}
		switch k {
		case "Key":
			return readItem(r, &in.Key)
		case "UpdateExpression":
			return readString(r, &in.UpdateExpression)
		case "AttributeUpdates":
			m := map[string]expr.LegacyUpdate{}
			ok, err := r.Object("Map<AttributeValueUpdate>", func(name string) error {
				// An absent Action is PUT (API reference,
				// AttributeValueUpdate: "PUT (default)"); one given
				// is checked against the enum, "" included.
				u := expr.LegacyUpdate{Action: "PUT"}
				_, err := object(r, "AttributeValueUpdate", func(k string) error {
					switch k {
					case "Action":
						a, ok, err := r.String()
						if ok {
							u.Action = a
						}
						return err
					case "Value":
						if r.Peek() == wire.Null {
							return r.Skip()
						}
						v, err := attr.ReadValue(r)
						u.Value = &v
						return err
					}
					return r.Skip()
				})
				m[name] = u
				return err
			})
			if ok {
				in.AttributeUpdates = m
			}
			return err
		}
		return r.Skip()
	})
	return err
}

// Prepare checks the request without the table and parses its update
// and condition expressions. UpdateItem reads a
// request in one of two forms (the conformance suite's
// tests/tier3/validation-ordering/updateItem.test.ts and
// deepRequests.test.ts, eu-west-2 and us-east-1, 2026-10-09):
//   - the newer one checks ConditionalOperator first, on its own, then
//     reports only the first member error, in the single-error envelope;
//   - the older one, for a request without Key or nested past
//     olderReadingDepth, reports every member error together, in the
//     order ReturnConsumedCapacity, TableName, ReturnValues,
//     ConditionalOperator (in its older wording), Key, and its other
//     messages bare.
func (in *UpdateItemInput) Prepare() error {
	if in.Key == nil {
		in.older = true
	}
	if in.older {
		return in.prepare("")
	}
	if err := newerConditionalOperator(in.ConditionalOperator); err != nil {
		return err
	}
	return envelope(in.prepare(""))
}

// memberConstraints adds UpdateItem's own member constraints in the order
// its reading reports them (see Prepare); a transaction's Update (prefix
// set) has the shared order of the write actions.
func (in *UpdateItemInput) memberConstraints(c *constraints, prefix string) {
	switch {
	case prefix != "":
		in.constraints(c)
	case in.older:
		c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
		c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, returnItemCollectionMetricsValues...)
		dataTableName(c, in.TableName)
		c.enum("returnValues", in.ReturnValues, returnValuesValues...)
		c.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
		c.enum("conditionalOperator", in.ConditionalOperator, olderConditionalOperatorValues...)
	default:
		dataTableName(c, in.TableName)
		c.enum("returnValues", in.ReturnValues, returnValuesValues...)
		c.enum("returnConsumedCapacity", in.ReturnConsumedCapacity, returnConsumedCapacityValues...)
		c.enum("returnItemCollectionMetrics", in.ReturnItemCollectionMetrics, returnItemCollectionMetricsValues...)
		c.enum("returnValuesOnConditionCheckFailure", in.ReturnValuesOnConditionCheckFailure, returnValuesOnCCFValues...)
	}
}

// prepare checks the request and parses its expressions into Update
// and Condition; prefix is the member path of a
// transaction's Update ("" for UpdateItem itself).
func (in *UpdateItemInput) prepare(prefix string) error {
	c := constraints{prefix: prefix}
	in.memberConstraints(&c, prefix)
	if in.Key == nil {
		c.add("", true, "key", "Member must not be null")
	}
	for name, u := range in.AttributeUpdates {
		a := u.Action
		c.enum("attributeUpdates."+name+".member.action", &a, "ADD", "PUT", "DELETE")
	}
	if prefix == "" && !in.older && len(c.list) > 1 {
		c.list = c.list[:1] // the newer reading stops at the first
	}
	if err := c.err(); err != nil {
		return err
	}
	var legacy []string
	if in.AttributeUpdates != nil {
		legacy = append(legacy, "AttributeUpdates")
	}
	legacy = append(legacy, in.legacyParams()...)
	exprs := []exprParam{{expr.UpdateExpression, in.UpdateExpression}, {expr.ConditionExpression, in.ConditionExpression}}
	ctx, err := in.ExpressionParams.newContext(exprs, legacy)
	if err != nil {
		return err
	}
	// A transaction's action, and the older reading, parse the expressions
	// before they check the key (as CommonWrite.prepareWith).
	exprFirst := prefix != "" || in.older
	if !exprFirst {
		if err := attr.ValidateItemIn(in.Key, in.ExpressionParams.layer); err != nil {
			return err
		}
	}
	if err := validateAttributeUpdates(in.AttributeUpdates); err != nil {
		return err
	}
	if in.Expected != nil {
		if err := validateLegacyValues(in.Expected, attr.CurrentLayer); err != nil {
			return err
		}
		op := ""
		if in.ConditionalOperator != nil {
			op = *in.ConditionalOperator
		}
		if in.Condition, err = expr.LegacyToCondition(in.Expected, op, true); err != nil {
			return err
		}
	}
	if in.UpdateExpression != nil {
		ctx.SizeWithoutLength = prefix != "" // a transaction's Update
		if in.Update, err = ctx.ParseUpdate(*in.UpdateExpression); err != nil {
			return err
		}
	}
	if in.ConditionExpression != nil {
		if in.Condition, err = ctx.ParseCondition(expr.ConditionExpression, *in.ConditionExpression); err != nil {
			return err
		}
	}
	if exprFirst {
		if err := attr.ValidateItemIn(in.Key, in.ExpressionParams.layer); err != nil {
			return err
		}
	}
	return ctx.CheckUnused()
}

// validateAttributeUpdates applies DynamoDB's rules to legacy
// AttributeUpdates, in name order.
func validateAttributeUpdates(updates map[string]expr.LegacyUpdate) error {
	names := make([]string, 0, len(updates))
	for n := range updates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := attr.CheckName(name); err != nil {
			return err
		}
		u := updates[name]
		if u.Value != nil {
			v, err := attr.Validate(*u.Value)
			if err != nil {
				return err
			}
			u.Value = &v
			updates[name] = u
		}
		action := u.Action
		switch {
		case u.Value == nil && action != "DELETE":
			return ddberr.InvalidParam("Only DELETE action is allowed when no attribute value is specified")
		case u.Value != nil && action == "DELETE" && !u.Value.Kind().IsSet():
			return ddberr.InvalidParam("DELETE action with value is not supported for the type " + u.Value.Kind().String())
		case u.Value != nil && action == "ADD" && !u.Value.Kind().IsSet() && u.Value.Kind() != attr.N && u.Value.Kind() != attr.L:
			return ddberr.InvalidParam("ADD action is not supported for the type " + u.Value.Kind().String())
		}
	}
	return nil
}

// OnlyRemoves reports whether the update only takes attributes away: an
// UpdateExpression of REMOVE and DELETE clauses alone, or AttributeUpdates
// whose every action is DELETE. On an item that does not exist such an
// update writes nothing: no item, no Attributes for ALL_NEW, no stream
// record (ScyllaDB Alternator's test_item.py::test_update_item_non_existent
// and test_returnvalues.py, which pass against DynamoDB; the API
// reference's AttributeValueUpdate: DELETE on a missing item "Nothing
// happens; there is no attribute to delete"). An empty AttributeUpdates,
// or no update at all, is not one: it creates the key-only item.
func (in *UpdateItemInput) OnlyRemoves() bool {
	if in.Update != nil {
		for _, a := range in.Update.Actions() {
			if a.Kind != expr.ActionRemove && a.Kind != expr.ActionDelete {
				return false
			}
		}
		return true
	}
	for _, u := range in.AttributeUpdates {
		if u.Action != "DELETE" {
			return false
		}
	}
	return len(in.AttributeUpdates) > 0
}

// UpdatedNames returns the top-level attributes a legacy AttributeUpdates
// writes, sorted.
func (in *UpdateItemInput) UpdatedNames() []string {
	names := make([]string, 0, len(in.AttributeUpdates))
	for n := range in.AttributeUpdates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
