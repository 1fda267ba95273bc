package gosdk

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TestCases_ThroughGoSDK keeps the issue-2 parts of ../shared/cases as
// aws-sdk-go-v2 tests (each case names the emulator bug report it comes
// from; the expected answers are real DynamoDB's).
func TestCases_ThroughGoSDK(t *testing.T) {
	srv := StartServer(t, "--in-memory")
	c := srv.Client()
	table := func(name string, keys ...string) {
		t.Helper()
		in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest}
		for i := 0; i < len(keys); i += 2 {
			kt := types.KeyTypeHash
			if i > 0 {
				kt = types.KeyTypeRange
			}
			in.KeySchema = append(in.KeySchema, types.KeySchemaElement{AttributeName: aws.String(keys[i]), KeyType: kt})
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(keys[i]), AttributeType: types.ScalarAttributeType(keys[i+1])})
		}
		if _, err := c.CreateTable(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	b := func(v ...byte) types.AttributeValue {
		return &types.AttributeValueMemberB{Value: append([]byte{}, v...)}
	}
	wantErr := func(t *testing.T, err error, code, substr string) {
		t.Helper()
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != code || !strings.Contains(ae.ErrorMessage(), substr) {
			t.Errorf("got %v, want %s containing %q", err, code, substr)
		}
	}
	put := func(name string, item map[string]types.AttributeValue) error {
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(name), Item: item})
		return err
	}

	t.Run("number-precision-range-format", func(t *testing.T) {
		table("nums", "p", "S")
		wantErr(t, put("nums", map[string]types.AttributeValue{"p": s("a"), "n": n("1234567890123456789012345678901234567890")}), "ValidationException", "more than 38 significant digits")
		wantErr(t, put("nums", map[string]types.AttributeValue{"p": s("b"), "n": n("1E126")}), "ValidationException", "overflow")
		wantErr(t, put("nums", map[string]types.AttributeValue{"p": s("c"), "n": n("1E-131")}), "ValidationException", "underflow")
		wantErr(t, put("nums", map[string]types.AttributeValue{"p": s("d"), "n": n(`"42.0"`)}), "ValidationException", "numeric")
		wantErr(t, put("nums", map[string]types.AttributeValue{"p": s("e"), "n": n(" 1")}), "ValidationException", "numeric")
		if err := put("nums", map[string]types.AttributeValue{"p": s("f"), "a": n("00042"), "b": n("1.50"), "c": n("-0"), "d": n("1.5E2"), "e": n("+5"), "g": n(".123"), "i": n("1e-20")}); err != nil {
			t.Fatal(err)
		}
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("nums"), Key: map[string]types.AttributeValue{"p": s("f")}, ConsistentRead: aws.Bool(true)})
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range map[string]string{"a": "42", "b": "1.5", "c": "0", "d": "150", "e": "5", "g": "0.123", "i": "0.00000000000000000001"} {
			if got := out.Item[k].(*types.AttributeValueMemberN).Value; got != want {
				t.Errorf("%s = %s, want %s", k, got, want)
			}
		}
	})

	t.Run("key-length-limits", func(t *testing.T) {
		table("keylen", "pk", "S", "sk", "S")
		if err := put("keylen", map[string]types.AttributeValue{"pk": s(strings.Repeat("x", 2048)), "sk": s("s")}); err != nil {
			t.Errorf("2048-byte partition key: %v", err)
		}
		wantErr(t, put("keylen", map[string]types.AttributeValue{"pk": s(strings.Repeat("x", 2049)), "sk": s("s")}), "ValidationException", "Size of hashkey has exceeded the maximum size limit of2048 bytes")
		if err := put("keylen", map[string]types.AttributeValue{"pk": s("p"), "sk": s(strings.Repeat("y", 1024))}); err != nil {
			t.Errorf("1024-byte sort key: %v", err)
		}
		wantErr(t, put("keylen", map[string]types.AttributeValue{"pk": s("p"), "sk": s(strings.Repeat("y", 1025))}), "ValidationException", "Aggregated size of all range keys has exceeded the size limit of 1024 bytes")
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("keylen"), Key: map[string]types.AttributeValue{"pk": s(strings.Repeat("x", 2049)), "sk": s("s")}})
		wantErr(t, err, "ValidationException", "limit")
		wantErr(t, put("keylen", map[string]types.AttributeValue{"pk": s(strings.Repeat("é", 1025)), "sk": s("s")}), "ValidationException", "hashkey")
	})

	t.Run("empty-string-keys-vs-attributes", func(t *testing.T) {
		table("empties", "pk", "S")
		wantErr(t, put("empties", map[string]types.AttributeValue{"pk": s("")}), "ValidationException", "key attribute cannot contain an empty string value")
		if err := put("empties", map[string]types.AttributeValue{"pk": s("k"), "a": s(""), "b": b(), "l": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("")}}}); err != nil {
			t.Fatal(err)
		}
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("empties"), Key: map[string]types.AttributeValue{"pk": s("k")}})
		if err != nil || out.Item["a"].(*types.AttributeValueMemberS).Value != "" || len(out.Item["b"].(*types.AttributeValueMemberB).Value) != 0 {
			t.Fatalf("%v %v", out, err)
		}
		_, err = c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("empties"), Key: map[string]types.AttributeValue{"pk": s("")}})
		wantErr(t, err, "ValidationException", "empty")

		// A GSI key attribute may not be empty either; the message names
		// the index and the key.
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String("empties_gsi"), BillingMode: types.BillingModePayPerRequest,
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("gk"), AttributeType: types.ScalarAttributeTypeS},
			},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName: aws.String("gk_index"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("gk"), KeyType: types.KeyTypeHash}},
			}},
		}); err != nil {
			t.Fatal(err)
		}
		wantErr(t, put("empties_gsi", map[string]types.AttributeValue{"pk": s("k2"), "gk": s("")}), "ValidationException",
			"The AttributeValue for a key attribute cannot contain an empty string value. IndexName: gk_index, IndexKey: gk")
		if err := put("empties_gsi", map[string]types.AttributeValue{"pk": s("k3"), "a": s("")}); err != nil {
			t.Fatalf("an item without the GSI key is legal (sparse index): %v", err)
		}
	})

	t.Run("transaction-cancellation-reasons", func(t *testing.T) {
		table("txcases", "pk", "S")
		if err := put("txcases", map[string]types.AttributeValue{"pk": s("key1"), "foo": s("bar")}); err != nil {
			t.Fatal(err)
		}
		_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String("txcases"), Item: map[string]types.AttributeValue{"pk": s("key2"), "foo": s("new")}}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String("txcases"), Key: map[string]types.AttributeValue{"pk": s("key1")},
				ConditionExpression:                 aws.String("foo = :expected"),
				ExpressionAttributeValues:           map[string]types.AttributeValue{":expected": s("nonexistent")},
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}},
		}})
		var tce *types.TransactionCanceledException
		if !errors.As(err, &tce) {
			t.Fatalf("got %v, want TransactionCanceledException", err)
		}
		if !strings.Contains(tce.ErrorMessage(), "specific reasons [None, ConditionalCheckFailed]") || len(tce.CancellationReasons) != 2 {
			t.Fatalf("message %q, %d reasons", tce.ErrorMessage(), len(tce.CancellationReasons))
		}
		r0, r1 := tce.CancellationReasons[0], tce.CancellationReasons[1]
		if aws.ToString(r0.Code) != "None" || r0.Message != nil || aws.ToString(r1.Code) != "ConditionalCheckFailed" ||
			aws.ToString(r1.Message) != "The conditional request failed" || r1.Item["foo"].(*types.AttributeValueMemberS).Value != "bar" {
			t.Fatalf("reasons %+v %+v", r0, r1)
		}
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("txcases"), Key: map[string]types.AttributeValue{"pk": s("key2")}, ConsistentRead: aws.Bool(true)})
		if err != nil || out.Item != nil {
			t.Fatalf("the cancelled Put was applied: %v %v", out.Item, err)
		}
	})

	t.Run("gsi-pagination-shared-gsi-key", func(t *testing.T) {
		if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName: aws.String("gsipag"), BillingMode: types.BillingModePayPerRequest,
			KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange}},
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("gsi_pk"), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String("gsi_sk"), AttributeType: types.ScalarAttributeTypeS},
			},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
				IndexName: aws.String("test_gsi"), Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				KeySchema: []types.KeySchemaElement{{AttributeName: aws.String("gsi_pk"), KeyType: types.KeyTypeHash}, {AttributeName: aws.String("gsi_sk"), KeyType: types.KeyTypeRange}},
			}},
		}); err != nil {
			t.Fatal(err)
		}
		for _, i := range []string{"3", "4", "5", "6", "9", "0", "1", "7", "8", "2"} {
			if err := put("gsipag", map[string]types.AttributeValue{"pk": s("the-key"), "sk": s(i), "gsi_pk": s("alpha"), "gsi_sk": s("beta")}); err != nil {
				t.Fatal(err)
			}
		}
		q := &dynamodb.QueryInput{
			TableName: aws.String("gsipag"), IndexName: aws.String("test_gsi"), Limit: aws.Int32(6),
			KeyConditionExpression:    aws.String("gsi_pk = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": s("alpha")},
		}
		p1, err := c.Query(ctx, q)
		if err != nil || p1.Count != 6 || len(p1.LastEvaluatedKey) != 4 {
			t.Fatalf("page 1: %v, LastEvaluatedKey %v (want the table key and the index key)", err, p1.LastEvaluatedKey)
		}
		for _, k := range []string{"pk", "sk", "gsi_pk", "gsi_sk"} {
			if p1.LastEvaluatedKey[k] == nil {
				t.Fatalf("LastEvaluatedKey lacks %s", k)
			}
		}
		q.ExclusiveStartKey = p1.LastEvaluatedKey
		p2, err := c.Query(ctx, q)
		if err != nil || p2.Count != 4 || p2.LastEvaluatedKey != nil {
			t.Fatalf("page 2: %v count %d LastEvaluatedKey %v", err, p2.Count, p2.LastEvaluatedKey)
		}
		var got []string
		for _, it := range append(p1.Items, p2.Items...) {
			got = append(got, it["sk"].(*types.AttributeValueMemberS).Value)
		}
		// Equal index keys come back in table-key order.
		if strings.Join(got, "") != "0123456789" {
			t.Fatalf("items %v, want sk 0..9 once each in table-key order", got)
		}
	})

	t.Run("empty-and-duplicate-sets", func(t *testing.T) {
		table("sets", "pk", "S")
		wantErr(t, put("sets", map[string]types.AttributeValue{"pk": s("foo"), "ss": &types.AttributeValueMemberSS{Value: []string{}}}), "ValidationException", "string set  may not be empty")
		wantErr(t, put("sets", map[string]types.AttributeValue{"pk": s("dup"), "ss": &types.AttributeValueMemberSS{Value: []string{"a", "a"}}}), "ValidationException", "duplicates")
		out, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("sets"), Key: map[string]types.AttributeValue{"pk": s("foo")}, ConsistentRead: aws.Bool(true)})
		if err != nil || out.Item != nil {
			t.Fatalf("a rejected item was written: %v %v", out.Item, err)
		}
	})

	t.Run("begins-with-binary", func(t *testing.T) {
		table("binbeg", "p", "S", "c", "B")
		for _, v := range [][]byte{{1, 2, 3, 4}, {1, 2, 5}, {2}} {
			if err := put("binbeg", map[string]types.AttributeValue{"p": s("x"), "c": b(v...)}); err != nil {
				t.Fatal(err)
			}
		}
		out, err := c.Query(ctx, &dynamodb.QueryInput{
			TableName: aws.String("binbeg"), KeyConditionExpression: aws.String("p = :p AND begins_with(c, :pre)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("x"), ":pre": b(1, 2)},
		})
		if err != nil || out.Count != 2 {
			t.Fatalf("begins_with on binary: %v %v", out, err)
		}
	})

	t.Run("error-body-format-and-text", func(t *testing.T) {
		_, err := c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("no_such_table"), Key: map[string]types.AttributeValue{"p": s("x")}})
		var rnf *types.ResourceNotFoundException
		if !errors.As(err, &rnf) || !strings.Contains(rnf.ErrorMessage(), "Requested resource not found") {
			t.Errorf("got %v", err)
		}
	})

	t.Run("key-condition-begins-with-syntax", func(t *testing.T) {
		table("kcs", "accountId", "S", "vId", "S")
		if err := put("kcs", map[string]types.AttributeValue{"accountId": s("a"), "vId": s("v1")}); err != nil {
			t.Fatal(err)
		}
		q := func(kce string) (*dynamodb.QueryOutput, error) {
			return c.Query(ctx, &dynamodb.QueryInput{
				TableName: aws.String("kcs"), KeyConditionExpression: aws.String(kce),
				ExpressionAttributeNames:  map[string]string{"#a": "accountId", "#v": "vId"},
				ExpressionAttributeValues: map[string]types.AttributeValue{":a": s("a"), ":v": s("v")},
			})
		}
		_, err := q("#a = :a AND begins_with #v :v")
		wantErr(t, err, "ValidationException", "Invalid KeyConditionExpression: Syntax error")
		out, err := q("#a = :a AND begins_with(#v, :v)")
		if err != nil || out.Count != 1 {
			t.Fatalf("%v %v", out, err)
		}
		_, err = q("#a = :a AND beginsWith(#v, :v)")
		wantErr(t, err, "ValidationException", "Invalid KeyConditionExpression: Invalid function name; function: beginsWith")
	})
}
