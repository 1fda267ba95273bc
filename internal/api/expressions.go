package api

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

// ExpressionParams are the ExpressionAttributeNames and
// ExpressionAttributeValues members shared by the expression-using
// operations.
type ExpressionParams struct {
	Names  map[string]string // nil when absent
	Values attr.Item         // nil when absent

	// layer words value errors as the operation's validation layer does
	// (attr.OlderLayer for Scan, BatchWriteItem and transactions): the
	// older layer also wraps an invalid expression value in
	// "ExpressionAttributeValues contains invalid value: ... for key :v",
	// the current one does not.
	layer attr.Layer
}

// decodeMember decodes key if it is one of the expression members.
func (p *ExpressionParams) decodeMember(r *wire.Reader, key string) (bool, error) {
	switch key {
	case "ExpressionAttributeNames":
		return true, readStringMap(r, &p.Names)
	case "ExpressionAttributeValues":
		return true, readItem(r, &p.Values)
	}
	return false, nil
}

// exprParam names one expression member of a request and its text.
type exprParam struct {
	kind expr.Kind
	src  *string
}

// maxPlaceholderBytes is the longest ExpressionAttributeNames or
// ExpressionAttributeValues key, "#" or ":" included. The too-long
// message carries the key's size for names but not for values.
const maxPlaceholderBytes = 255

var (
	namePlaceholder  = regexp.MustCompile(`^#[0-9A-Za-z_]+$`)
	valuePlaceholder = regexp.MustCompile(`^:[0-9A-Za-z_]+$`)
)

// newContext validates the expression members the way DynamoDB does
// before parsing any expression: legacy and expression members mixed,
// names or values without expressions, empty maps, malformed
// placeholders, invalid values. exprs lists the request's expression
// members (present or not); legacy lists the names of the legacy members
// that are present.
func (p *ExpressionParams) newContext(exprs []exprParam, legacy []string) (*expr.Context, error) {
	if err := conflict(exprs, legacy); err != nil {
		return nil, err
	}
	var present []string
	valueExprs := 0
	for _, e := range exprs {
		if e.src != nil {
			present = append(present, string(e.kind))
			if e.kind != expr.ProjectionExpression {
				valueExprs++
			}
		}
	}
	if p.Names != nil && len(present) == 0 {
		return nil, ddberr.Validation("ExpressionAttributeNames can only be specified when using expressions")
	}
	if p.Values != nil && valueExprs == 0 {
		return nil, ddberr.Validation("ExpressionAttributeValues can only be specified when using expressions")
	}
	if p.Names != nil {
		if len(p.Names) == 0 {
			return nil, ddberr.Validation("ExpressionAttributeNames must not be empty")
		}
		keys := sortedKeys(p.Names)
		for _, k := range keys {
			if len(k) > maxPlaceholderBytes {
				return nil, ddberr.Validation("ExpressionAttributeNames contains invalid key: The expression attribute map contains a key that is too long; size of key: " + strconv.Itoa(len(k)))
			}
			if !namePlaceholder.MatchString(k) {
				return nil, ddberr.Validation(`ExpressionAttributeNames contains invalid key: Syntax error; key: "` + k + `"`)
			}
		}
		for _, k := range keys {
			if err := attr.CheckName(p.Names[k]); err != nil {
				return nil, ddberr.Validation("ExpressionAttributeNames contains invalid value: " + messageOf(err) + " for key " + k)
			}
		}
	}
	if p.Values != nil {
		if len(p.Values) == 0 {
			return nil, ddberr.Validation("ExpressionAttributeValues must not be empty")
		}
		keys := p.Values.SortedNames()
		for _, k := range keys {
			if len(k) > maxPlaceholderBytes {
				return nil, ddberr.Validation("ExpressionAttributeValues contains invalid key: The expression attribute map contains a key that is too long;")
			}
			if !valuePlaceholder.MatchString(k) {
				return nil, ddberr.Validation(`ExpressionAttributeValues contains invalid key: Syntax error; key: "` + k + `"`)
			}
		}
		for _, k := range keys {
			v, err := attr.ValidateIn(p.Values[k], p.layer)
			if err != nil {
				// The current layer (PutItem, UpdateItem, DeleteItem, GetItem,
				// BatchGetItem, Query) answers a malformed number or a
				// duplicate set member as it answers one in an item; the
				// older one, and any other fault, is wrapped (attr.Bare).
				if p.layer == attr.CurrentLayer && attr.Bare(err) {
					return nil, err
				}
				return nil, ddberr.Validation("ExpressionAttributeValues contains invalid value: " + messageOf(err) + " for key " + k)
			}
			p.Values[k] = v
		}
	}
	return expr.NewContext(p.Names, p.Values), nil
}

// conflict is DynamoDB's refusal of a request that mixes expression
// members with legacy ones: both lists in the operation's fixed order,
// whatever order the request gives them in. legacy lists the legacy
// members present.
//
// Source: the conformance suite's tests/tier3/error-messages (putItem,
// deleteItem, updateItem, batchGetItem: the exact text, against
// DynamoDB); dynalite's validateExpressionParams for the order.
func conflict(exprs []exprParam, legacy []string) error {
	var present []string
	for _, e := range exprs {
		if e.src != nil {
			present = append(present, string(e.kind))
		}
	}
	if len(present) > 0 && len(legacy) > 0 {
		return ddberr.Validation("Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {" +
			strings.Join(legacy, ", ") + "} Expression parameters: {" + strings.Join(present, ", ") + "}")
	}
	return nil
}

func messageOf(err error) string {
	if e, ok := ddberr.As(err); ok {
		return e.Message
	}
	return err.Error()
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// attributesToGet converts the legacy AttributesToGet list into projection
// paths of top-level attributes.
func attributesToGet(names []string) ([]*expr.Path, error) {
	if names == nil {
		return nil, nil
	}
	seen := map[string]bool{}
	paths := make([]*expr.Path, 0, len(names))
	for _, n := range names {
		if err := attr.CheckName(n); err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, ddberr.InvalidParam("Duplicate value in attribute name: " + n)
		}
		seen[n] = true
		paths = append(paths, &expr.Path{Elems: []expr.Elem{{Name: n, Raw: n}}})
	}
	return paths, nil
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
