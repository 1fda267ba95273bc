package expr_test

import (
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/expr"
)

func ctx() *expr.Context {
	return expr.NewContext(
		map[string]string{"#n": "name", "#s": "status", "#v_id": "vId", "#a": "a"},
		map[string]attr.Value{
			":s": attr.Str("x"), ":t": attr.Str("y"), ":n": attr.Num("1"), ":m": attr.Num("5"),
			":b": attr.Bool(true), ":bin": attr.BinString("\x01\x02"), ":type": attr.Str("S"),
			":badtype": attr.Str("Q"),
		})
}

// TestParseCondition_Valid: each valid expression parses, and its String
// form parses back to the same String (round trip).
func TestParseCondition_Valid(t *testing.T) {
	for _, src := range []string{
		"a = :s",
		"a.b[2].#n <> :s",
		"a < :n AND b >= :n OR NOT c = :s",
		"(a = :s OR b = :s) AND c = :s",
		"a BETWEEN :n AND :m",
		"a IN (:s, :t)",
		"attribute_exists(a) AND attribute_not_exists(#n)",
		"begins_with(a, :s)",
		"contains(a, :s)",
		"size(a) > :n",
		"attribute_type(a, :type)",
		"(a) = :s",
		"not a = :s",
		"a=:s and b=:t",
		"#s = :s",
		"a IN (" + strings.TrimSuffix(strings.Repeat(":s,", 100), ",") + ")",
		strings.TrimSuffix(strings.Repeat("a = :s OR ", 150), " OR "),
		strings.Repeat("NOT ", 299) + "a = :s", // 300 operators, nested 300 deep
	} {
		t.Run(src, func(t *testing.T) {
			e, err := ctx().ParseCondition(expr.ConditionExpression, src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			again, err := ctx().ParseCondition(expr.ConditionExpression, e.String())
			if err != nil {
				t.Fatalf("reparse %q: %v", e.String(), err)
			}
			if again.String() != e.String() {
				t.Fatalf("round trip: %q then %q", e.String(), again.String())
			}
		})
	}
}

// TestParseCondition_Invalid: DynamoDB's exact messages. Sources: AWS
// conformance captures and dynalite (see docs/dynamodb-behaviour.md).
func TestParseCondition_Invalid(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "Invalid ConditionExpression: The expression can not be empty;"},
		{"foo", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "foo"`},
		{"a = = b", `Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"`},
		{"!!! INVALID !!!", `Invalid ConditionExpression: Syntax error; token: "!", near: "!!"`},
		{"attribute_not_exists(", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "("`},
		{"contains (themes, :s", `Invalid ConditionExpression: Syntax error; token: "<EOF>", near: ":s"`},
		{"#account_id = :s AND begins_with #v_id :s", `Invalid ConditionExpression: Syntax error; token: "#v_id", near: "begins_with #v_id :s"`},
		{"a AND b", `Invalid ConditionExpression: Syntax error; token: "AND", near: "a AND b"`},
		{"my-attr = :s", `Invalid ConditionExpression: Syntax error; token: "-", near: "my-attr"`},
		{"beginsWith(a, :s)", "Invalid ConditionExpression: Invalid function name; function: beginsWith"},
		// DynamoDB Local's catalog: INVALID_CONDITION_FUNCTION.
		{"if_not_exists(a, :s) = :s", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists"},
		{"list_append(a, :s) = :s", "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"},
		{"((a = :s))", "Invalid ConditionExpression: The expression has redundant parentheses;"},
		{strings.Repeat("NOT ", 1000) + "a = :s", "Invalid ConditionExpression: The expression contains too many operators; operator count: 1001"},
		{"size(a)", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"},
		{"attribute_exists(a) = :s", "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: attribute_exists"},
		{"status = :s", "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"},
		{"a = :missing", "Invalid ConditionExpression: An expression attribute value used in expression is not defined; attribute value: :missing"},
		{"#missing = :s", "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; attribute name: #missing"},
		{"begins_with(a, :s, :t)", "Invalid ConditionExpression: Incorrect number of operands for operator or function; operator or function: begins_with, number of operands: 3"},
		{"begins_with(a, :n)", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
		{"a = a", "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or function; operator: =, first operand: [a]"},
		{"attribute_exists(:s)", "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"},
		{"attribute_type(a, :badtype)", "Invalid ConditionExpression: Invalid attribute type name found; type: Q, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"},
		{"a BETWEEN :m AND :n", "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"},
		{"a BETWEEN :n AND :s", "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:x}"},
		{"size(:n) > :m", "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: size, operand type: N"},
		{"_a = :s", `Invalid ConditionExpression: Syntax error; token: "_a", near: "_a ="`},
		{strings.Repeat("a", 4097), "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"},
		{"a IN (" + strings.TrimSuffix(strings.Repeat(":s,", 101), ",") + ")", "Invalid ConditionExpression: The IN operator is provided with too many operands; number of operands: 101"},
		{strings.TrimSuffix(strings.Repeat("a = :s OR ", 151), " OR "), "Invalid ConditionExpression: The expression contains too many operators; operator count: 301"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, err := ctx().ParseCondition(expr.ConditionExpression, tc.src)
			if err == nil {
				t.Fatal("parsed; want an error")
			}
			got := strings.TrimPrefix(err.Error(), "ValidationException: ")
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestParseKeyCondition(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		n         int
	}{
		{src: "a = :s AND begins_with(b, :t)", n: 2},
		{src: ":s = a", n: 1},
		{src: "a = :s AND b BETWEEN :n AND :m", n: 2},
		{src: "a = :s OR b = :t", want: "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: OR"},
		{src: "a = :s AND b = :t AND b = :s", want: "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key"},
		{src: "a.b = :s", want: "Invalid KeyConditionExpression: KeyConditionExpressions cannot have conditions on nested attributes"},
		{src: "contains(a, :s)", want: "Invalid KeyConditionExpression: Invalid operator used in KeyConditionExpression: contains"},
		{src: "begins_with(a, :n)", want: "Invalid KeyConditionExpression: Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			conds, err := ctx().ParseKeyCondition(tc.src)
			if tc.want != "" {
				if err == nil || strings.TrimPrefix(err.Error(), "ValidationException: ") != tc.want {
					t.Fatalf("got %v, want %s", err, tc.want)
				}
				return
			}
			if err != nil || len(conds) != tc.n {
				t.Fatalf("got %v %v", conds, err)
			}
		})
	}
}

func TestParseProjection(t *testing.T) {
	paths, err := ctx().ParseProjection("a, b.c[1], #n")
	if err != nil || len(paths) != 3 || paths[2].Elems[0].Name != "name" {
		t.Fatalf("got %v %v", paths, err)
	}
	if _, err := ctx().ParseProjection("a" + strings.Repeat(".b", 31)); err != nil {
		t.Errorf("32 levels: %v", err)
	}
	for _, tc := range []struct{ src, want string }{
		{"a, a", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"a, a.b", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a, b]"},
		{"#a, a", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a], path two: [a]"},
		{"!!! INVALID !!!", `Invalid ProjectionExpression: Syntax error; token: "!", near: "!!"`},
		{"a[0], a.b", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]"},
		// 33 levels: DynamoDB's answer quoted in Alternator's
		// test_projection_expression_path_nesting_levels (32 are accepted).
		{"a" + strings.Repeat(".b", 32), "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33"},
		{"a" + strings.Repeat("[0]", 32), "Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33"},
	} {
		_, err := ctx().ParseProjection(tc.src)
		if err == nil || strings.TrimPrefix(err.Error(), "ValidationException: ") != tc.want {
			t.Errorf("%s: got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

func TestContext_CheckUnused(t *testing.T) {
	c := ctx()
	if _, err := c.ParseCondition(expr.ConditionExpression, "#n = :s"); err != nil {
		t.Fatal(err)
	}
	err := c.CheckUnused()
	if err == nil || !strings.Contains(err.Error(), "Value provided in ExpressionAttributeNames unused in expressions: keys: {#a, #s, #v_id}") {
		t.Fatalf("got %v", err)
	}
}

// FuzzParseCondition: no input panics; whatever parses round-trips.
