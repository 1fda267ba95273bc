package partiql

import (
	"errors"
	"testing"

	"github.com/dynago/dynago/internal/ddberr"
)

// TestRestore: an error of the expression a statement became is worded
// as the statement's: the request validation's envelope and the " for
// key :vN" go (partiqlParameterNumbers.test.ts pins the bare nesting
// message), placeholders become the names and ?s they stand for, and
// what is not a DynamoDB error, or names nothing, is left alone.
func TestRestore(t *testing.T) {
	names := map[string]string{"#n0": "n", "#n1": "m"}
	for _, tc := range []struct {
		in   error
		want string
	}{
		{ddberr.Validation(`Syntax error; token: "+", near: "#n0 + #n0"`), `ValidationException: Syntax error; token: "+", near: "n + n"`},
		{ddberr.Validation(`1 validation error detected: ExpressionAttributeValues contains invalid value: Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit for key :v0`),
			`ValidationException: Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit`},
		{ddberr.Validation(`Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [#n1], path two: [#n1]`),
			`ValidationException: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m]`},
		{ddberr.Validation(`An operand in the update expression has an incorrect data type; operand: :v3`), `ValidationException: An operand in the update expression has an incorrect data type; operand: ?`},
		{ddberr.Validation(`#n9 is unknown`), `ValidationException: #n9 is unknown`},
		{ddberr.New(ddberr.ConditionalCheckFailedException, "The conditional request failed"), `ConditionalCheckFailedException: The conditional request failed`},
		{errors.New("storage: #n0 broke"), `storage: #n0 broke`},
	} {
		if got := Restore(tc.in, names).Error(); got != tc.want {
			t.Errorf("Restore(%v)\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}
