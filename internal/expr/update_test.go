package expr_test

import (
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/expr"
)

func updateCtx() *expr.Context {
	return expr.NewContext(
		map[string]string{"#n": "name", "#ss": "string_set"},
		map[string]attr.Value{
			":s": attr.Str("x"), ":n": attr.Num("1"), ":l": attr.List([]attr.Value{attr.Num("1")}),
			":ss": attr.Set(attr.SS, []string{"a"}), ":ns": attr.Set(attr.NS, []string{"1"}), ":m": attr.Map(nil),
			":b": attr.Bool(true),
		})
}

func TestParseUpdate_Valid(t *testing.T) {
	for _, src := range []string{
		"SET a = :s",
		"set a = :s, b.c[2] = :n",
		"SET a = b + :n, c = :n - d",
		"SET a = (b + :n)",
		"SET a = if_not_exists(a, :n) + :n",
		"SET l = list_append(l, :l), m = list_append(:l, l)",
		// Accepted by DynamoDB (Alternator's test_update_expression.py).
		"SET l = list_append(if_not_exists(l, :l), :l)",
		"REMOVE a, b.c, d[1]",
		"ADD hits :n, tags :ss",
		"DELETE tags :ss",
		"SET #n = :s REMOVE x ADD y :n DELETE z :ns",
		"REMOVE a SET b = :s",
	} {
		t.Run(src, func(t *testing.T) {
			u, err := updateCtx().ParseUpdate(src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			again, err := updateCtx().ParseUpdate(u.String())
			if err != nil || again.String() != u.String() {
				t.Fatalf("round trip %q: %q %v", u.String(), again, err)
			}
		})
	}
}

// TestParseUpdate_Invalid: DynamoDB's messages (docs/dynamodb-behaviour.md,
// ../shared/cases update-expression-overlapping-paths and
// error-body-format-and-text).
func TestParseUpdate_Invalid(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"", "Invalid UpdateExpression: The expression can not be empty;"},
		{"a = :s", `Invalid UpdateExpression: Syntax error; token: "a", near: "a ="`},
		{"SET a :s", `Invalid UpdateExpression: Syntax error; token: ":s", near: "a :s"`},
		{"SET a = :s,", `Invalid UpdateExpression: Syntax error; token: "<EOF>", near: ","`},
		{"SET a = :s SET b = :s", `Invalid UpdateExpression: The "SET" section can only be used once in an update expression;`},
		{"SET example_column = :s, example_column = :s", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [example_column], path two: [example_column]"},
		{"ADD #ss :ss DELETE #ss :ss", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [string_set], path two: [string_set]"},
		{"SET d = :m REMOVE d.hello", "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [d], path two: [d, hello]"},
		{"SET a[0] = :s, a.b = :s", "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]"},
		{"ADD n :s", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND"},
		{"DELETE n :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER, typeSet: ALLOWED_FOR_DELETE_OPERAND"},
		{"SET a = :s + :n", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"},
		{"SET a = list_append(:n, a)", "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: N"},
		{"SET a = if_not_exists(:n, :n)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		// Nested functions DynamoDB refuses (Alternator's
		// test_update_expression.py, which passes against DynamoDB).
		{"SET a = list_append(list_append(:l, :l), :l)", "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{"SET a = list_append(:l, (list_append(:l, :l)))", "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append"},
		{"SET a = if_not_exists(if_not_exists(a, :n), :n)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"SET a = if_not_exists(list_append(a, :l), :l)", "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"},
		{"SET a = nosuchfn(a)", "Invalid UpdateExpression: Invalid function name; function: nosuchfn"},
		// DynamoDB Local's catalog: INVALID_VALUE_FUNCTION.
		{"SET a = size(b)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"},
		{"SET a = contains(b, :s)", "Invalid UpdateExpression: The function is not allowed in an update expression; function: contains"},
		{"SET a = nope(b)", "Invalid UpdateExpression: Invalid function name; function: nope"},
		{"SET a = list_append(a)", "Invalid UpdateExpression: Incorrect number of operands for operator or function; operator or function: list_append, number of operands: 1"},
		{"SET #x = :s", "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; attribute name: #x"},
		{"SET a = :nope", "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :nope"},
		{"SET status = :s", "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"},
	} {
		t.Run(tc.src, func(t *testing.T) {
			_, err := updateCtx().ParseUpdate(tc.src)
			got := ""
			if err != nil {
				got = strings.TrimPrefix(err.Error(), "ValidationException: ")
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// FuzzParseUpdate: no input panics; whatever parses round-trips.
