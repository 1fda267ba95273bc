package server_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestConsumedCapacity_WorkedNumbers checks ConsumedCapacity to the unit
// against the rules and worked numbers of the AWS developer guide and
// real DynamoDB measurements collected in docs/research-capacity.md:
// reads per 4 KB (the boundary exactly), eventual halves, missing items,
// BatchGetItem rounding each item, Query summing sizes before rounding
// (filters, COUNT and projections change nothing), writes per 1 KB,
// updates on the larger version, BatchWriteItem per item, GSI writes per
// projected entry (key moves cost a delete and a put), LSI reads with
// table fetches rounded per item, transactions doubled (index writes
// not) with their Read/WriteCapacityUnits split.
func TestConsumedCapacity_WorkedNumbers(t *testing.T) {
	ts := newServer(t)
	x := func(n int) string { return strings.Repeat("x", n) }
	tables := []string{
		`{"TableName":"cap","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"capq","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`,
		`{"TableName":"capg","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"gk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",
		  "GlobalSecondaryIndexes":[{"IndexName":"gix","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["p"]}}]}`,
		`{"TableName":"capl","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"lk","AttributeType":"S"},{"AttributeName":"gk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST",
		  "GlobalSecondaryIndexes":[{"IndexName":"gix","KeySchema":[{"AttributeName":"gk","KeyType":"HASH"}],"Projection":{"ProjectionType":"ALL"}}],
		  "LocalSecondaryIndexes":[{"IndexName":"lix","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"lk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`,
	}
	for _, tb := range tables {
		mustOK(t, ts, "CreateTable", tb)
	}
	put := func(table, item string) string {
		return fmt.Sprintf(`{"TableName":%q,"Item":%s,"ReturnConsumedCapacity":"INDEXES"}`, table, item)
	}
	// Item sizes are attribute names plus values: {"pk":"a4096","d":x*4088} is 2+5+1+4088 = 4096 bytes.
	q := make([]string, 10) // 9 items of 4,178 bytes and one of 4,177: 41,779 bytes, 40.8 KB
	for i := range q {
		n := 4170
		if i == 9 {
			n = 4169
		}
		q[i] = fmt.Sprintf(`{"pk":{"S":"q"},"sk":{"S":"%02d"},"d":{"S":"%s"}}`, i, x(n))
	}
	none := `"<absent>"`
	steps := []struct {
		name, op, body, want string // want: "" for a setup step
	}{
		// Reads (GetItem, BatchGetItem).
		{"put 4096 bytes", "PutItem", put("cap", `{"pk":{"S":"a4096"},"d":{"S":"`+x(4088)+`"}}`), `{"TableName":"cap","CapacityUnits":4}`},
		{"put 4097 bytes", "PutItem", put("cap", `{"pk":{"S":"b4097"},"d":{"S":"`+x(4089)+`"}}`), `{"CapacityUnits":5}`},
		{"get 4096 strong", "GetItem", `{"TableName":"cap","Key":{"pk":{"S":"a4096"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, `{"TableName":"cap","CapacityUnits":1,"ReadCapacityUnits":` + none + `,"Table":` + none + `}`},
		{"get 4096 eventual", "GetItem", `{"TableName":"cap","Key":{"pk":{"S":"a4096"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":0.5}`},
		{"get 4097 strong", "GetItem", `{"TableName":"cap","Key":{"pk":{"S":"b4097"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":2}`},
		{"get 4097 projected", "GetItem", `{"TableName":"cap","Key":{"pk":{"S":"b4097"}},"ProjectionExpression":"pk","ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":1}`},
		{"get missing strong", "GetItem", `{"TableName":"cap","Key":{"pk":{"S":"none"}},"ConsistentRead":true,"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":1,"Table":{"CapacityUnits":1}}`},
		{"get missing eventual", "GetItem", `{"TableName":"cap","Key":{"pk":{"S":"none"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":0.5}`},
		{"batch get: each item rounded", "BatchGetItem", `{"RequestItems":{"cap":{"Keys":[{"pk":{"S":"a4096"}},{"pk":{"S":"b4097"}},{"pk":{"S":"none"}}],"ConsistentRead":true}},"ReturnConsumedCapacity":"TOTAL"}`, `[{"TableName":"cap","CapacityUnits":4}]`},
		{"batch get eventual", "BatchGetItem", `{"RequestItems":{"cap":{"Keys":[{"pk":{"S":"a4096"}},{"pk":{"S":"none"}},{"pk":{"S":"zz"}}]}},"ReturnConsumedCapacity":"TOTAL"}`, `[{"CapacityUnits":1.5}]`},
		// Writes.
		{"put 1024 bytes", "PutItem", put("cap", `{"pk":{"S":"w1024"},"d":{"S":"`+x(1016)+`"}}`), `{"CapacityUnits":1}`},
		{"put 1025 bytes", "PutItem", put("cap", `{"pk":{"S":"w1025"},"d":{"S":"`+x(1017)+`"}}`), `{"CapacityUnits":2}`},
		{"put 2049 bytes", "PutItem", put("cap", `{"pk":{"S":"big"},"d":{"S":"`+x(2043)+`"}}`), `{"CapacityUnits":3}`},
		{"put tiny over 2049: the larger", "PutItem", put("cap", `{"pk":{"S":"big"}}`), `{"CapacityUnits":3}`},
		{"update growing to 2049", "UpdateItem", `{"TableName":"cap","Key":{"pk":{"S":"big"}},"UpdateExpression":"SET d = :d","ExpressionAttributeValues":{":d":{"S":"` + x(2043) + `"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":3}`},
		{"delete 2049", "DeleteItem", `{"TableName":"cap","Key":{"pk":{"S":"big"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":3}`},
		{"delete missing", "DeleteItem", `{"TableName":"cap","Key":{"pk":{"S":"big"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":1}`},
		{"batch write 500 B + 3.5 KB", "BatchWriteItem", `{"RequestItems":{"cap":[{"PutRequest":{"Item":{"pk":{"S":"b500"},"d":{"S":"` + x(495) + `"}}}},{"PutRequest":{"Item":{"pk":{"S":"b3584"},"d":{"S":"` + x(3578) + `"}}}}]},"ReturnConsumedCapacity":"TOTAL"}`, `[{"TableName":"cap","CapacityUnits":5}]`},
		// Query: sizes summed, then rounded once.
		{"", "BatchWriteItem", `{"RequestItems":{"capq":[` + joinPuts(q[:5]) + `]}}`, ""},
		{"", "BatchWriteItem", `{"RequestItems":{"capq":[` + joinPuts(q[5:]) + `]}}`, ""},
		{"query 40.8 KB strong", "Query", `{"TableName":"capq","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"q"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":11}`},
		{"query 40.8 KB eventual", "Query", `{"TableName":"capq","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"q"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":5.5}`},
		{"query: a filter matching nothing changes nothing", "Query", `{"TableName":"capq","KeyConditionExpression":"pk = :p","FilterExpression":"d = :p","ExpressionAttributeValues":{":p":{"S":"q"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":5.5}`},
		{"query: COUNT changes nothing", "Query", `{"TableName":"capq","KeyConditionExpression":"pk = :p","Select":"COUNT","ExpressionAttributeValues":{":p":{"S":"q"}},"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":5.5}`},
		{"query Limit 3", "Query", `{"TableName":"capq","KeyConditionExpression":"pk = :p","Limit":3,"ExpressionAttributeValues":{":p":{"S":"q"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":4}`},
		{"query nothing: the minimum", "Query", `{"TableName":"capq","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"none"}},"ConsistentRead":true,"ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":1}`},
		{"scan nothing eventual", "Scan", `{"TableName":"capl","ReturnConsumedCapacity":"TOTAL"}`, `{"CapacityUnits":0.5}`},
		// GSI writes: per projected entry.
		{"put with the GSI key", "PutItem", put("capg", `{"pk":{"S":"a"},"gk":{"S":"G"},"p":{"N":"1"},"o":{"N":"1"}}`), `{"CapacityUnits":2,"Table":{"CapacityUnits":1},"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":1}}}`},
		{"sparse: no GSI key", "PutItem", put("capg", `{"pk":{"S":"s"},"o":{"N":"1"}}`), `{"CapacityUnits":1,"GlobalSecondaryIndexes":` + none + `}`},
		{"identical overwrite", "PutItem", put("capg", `{"pk":{"S":"a"},"gk":{"S":"G"},"p":{"N":"1"},"o":{"N":"1"}}`), `{"CapacityUnits":1,"GlobalSecondaryIndexes":` + none + `}`},
		{"change a non-projected attribute", "UpdateItem", `{"TableName":"capg","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET o = :v","ExpressionAttributeValues":{":v":{"N":"2"}},"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":1,"GlobalSecondaryIndexes":` + none + `}`},
		{"change a projected attribute", "UpdateItem", `{"TableName":"capg","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET p = :v","ExpressionAttributeValues":{":v":{"N":"2"}},"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":2,"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":1}}}`},
		{"move the GSI key: delete + put", "UpdateItem", `{"TableName":"capg","Key":{"pk":{"S":"a"}},"UpdateExpression":"SET gk = :v","ExpressionAttributeValues":{":v":{"S":"H"}},"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":3,"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":2}}}`},
		{"remove the GSI key", "UpdateItem", `{"TableName":"capg","Key":{"pk":{"S":"a"}},"UpdateExpression":"REMOVE gk","ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":2,"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":1}}}`},
		{"delete from table, GSI and LSI", "PutItem", put("capl", `{"pk":{"S":"p"},"sk":{"S":"0"},"lk":{"S":"L"},"gk":{"S":"G"}}`), `{"CapacityUnits":3,"LocalSecondaryIndexes":{"lix":{"CapacityUnits":1}},"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":1}}}`},
		{"delete from table, GSI and LSI", "DeleteItem", `{"TableName":"capl","Key":{"pk":{"S":"p"},"sk":{"S":"0"}},"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":3,"Table":{"CapacityUnits":1}}`},
		// Index reads: a GSI query of 8 entries of 2,000 bytes is 2 units.
		{"", "BatchWriteItem", `{"RequestItems":{"capg":[` + joinPuts(gsiItems(0, 8, x(1992))) + `]}}`, ""},
		{"GSI query 8 x 2000 bytes", "Query", `{"TableName":"capg","IndexName":"gix","KeyConditionExpression":"gk = :g","ExpressionAttributeValues":{":g":{"S":"H"}},"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":2,"Table":{"CapacityUnits":0},"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":2}}}`},
		// LSI reads: fetching unprojected attributes adds each table item, rounded on its own.
		{"", "BatchWriteItem", `{"RequestItems":{"capl":[{"PutRequest":{"Item":{"pk":{"S":"f"},"sk":{"S":"1"},"lk":{"S":"a"},"v":{"N":"1"}}}},{"PutRequest":{"Item":{"pk":{"S":"f"},"sk":{"S":"2"},"lk":{"S":"b"},"v":{"N":"1"}}}},{"PutRequest":{"Item":{"pk":{"S":"f"},"sk":{"S":"3"},"lk":{"S":"c"},"v":{"N":"1"}}}}]}}`, ""},
		{"LSI query, projected attributes only", "Query", `{"TableName":"capl","IndexName":"lix","KeyConditionExpression":"pk = :p","ExpressionAttributeValues":{":p":{"S":"f"}},"ConsistentRead":true,"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":1,"Table":{"CapacityUnits":0},"LocalSecondaryIndexes":{"lix":{"CapacityUnits":1}}}`},
		{"LSI query fetching from the table", "Query", `{"TableName":"capl","IndexName":"lix","KeyConditionExpression":"pk = :p","Select":"ALL_ATTRIBUTES","ExpressionAttributeValues":{":p":{"S":"f"}},"ConsistentRead":true,"ReturnConsumedCapacity":"INDEXES"}`, `{"CapacityUnits":4,"Table":{"CapacityUnits":3},"LocalSecondaryIndexes":{"lix":{"CapacityUnits":1}}}`},
		// Transactions: twice the units, index writes not doubled, and the Read/Write split.
		{"transact: two small puts", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"cap","Item":{"pk":{"S":"t1"}}}},{"Put":{"TableName":"cap","Item":{"pk":{"S":"t2"}}}}],"ReturnConsumedCapacity":"TOTAL"}`, `[{"TableName":"cap","CapacityUnits":4,"WriteCapacityUnits":4,"ReadCapacityUnits":` + none + `}]`},
		{"transact: a 1.5 KB put", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"cap","Item":{"pk":{"S":"t3"},"d":{"S":"` + x(1530) + `"}}}}],"ReturnConsumedCapacity":"TOTAL"}`, `[{"CapacityUnits":4,"WriteCapacityUnits":4}]`},
		{"transact: a ConditionCheck", "TransactWriteItems", `{"TransactItems":[{"ConditionCheck":{"TableName":"cap","Key":{"pk":{"S":"t9"}},"ConditionExpression":"attribute_not_exists(pk)"}}],"ReturnConsumedCapacity":"TOTAL"}`, `[{"CapacityUnits":2,"WriteCapacityUnits":2}]`},
		{"transact: a put into a GSI", "TransactWriteItems", `{"TransactItems":[{"Put":{"TableName":"capg","Item":{"pk":{"S":"t"},"gk":{"S":"T"}}}}],"ReturnConsumedCapacity":"INDEXES"}`, `[{"CapacityUnits":3,"WriteCapacityUnits":3,"Table":{"CapacityUnits":2,"WriteCapacityUnits":2},"GlobalSecondaryIndexes":{"gix":{"CapacityUnits":1,"WriteCapacityUnits":1}}}]`},
		{"transact get: present + missing", "TransactGetItems", `{"TransactItems":[{"Get":{"TableName":"cap","Key":{"pk":{"S":"t1"}}}},{"Get":{"TableName":"cap","Key":{"pk":{"S":"nope"}}}}],"ReturnConsumedCapacity":"TOTAL"}`, `[{"TableName":"cap","CapacityUnits":4,"ReadCapacityUnits":4,"WriteCapacityUnits":` + none + `}]`},
	}
	for _, s := range steps {
		got := mustOK(t, ts, s.op, s.body)
		if s.want == "" {
			continue
		}
		var want any
		if err := json.Unmarshal([]byte(s.want), &want); err != nil {
			t.Fatalf("%s: bad want: %v", s.name, err)
		}
		if msg := subset("", want, got["ConsumedCapacity"]); msg != "" {
			t.Errorf("%s (%s): ConsumedCapacity%s\n  got %v", s.name, s.op, msg, got["ConsumedCapacity"])
		}
	}
}

func joinPuts(items []string) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"PutRequest":{"Item":` + it + `}}`)
	}
	return b.String()
}

// gsiItems returns items h<from>..h<to-1> of capg with GSI key H and a
// projected attribute p: each index entry is pk(2+2) + gk(2+1) + p(1+len) bytes.
func gsiItems(from, to int, p string) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf(`{"pk":{"S":"h%d"},"gk":{"S":"H"},"p":{"S":"%s"}}`, i, p))
	}
	return out
}
