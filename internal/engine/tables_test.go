package engine

// The tables the engine's tests create, as CreateTable bodies.

import "strings"

// accountsTable has a partition key only.
const accountsTable = `{"TableName":"accounts","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"}],"AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"}],"BillingMode":"PAY_PER_REQUEST"}`

// indexedTable has every kind of index: a GSI with a sort key (ALL), a
// KEYS_ONLY GSI, an INCLUDE GSI on a multi-attribute key, and an LSI.
const indexedTable = `{"TableName":"ixt","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"N"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"n","AttributeType":"N"},{"AttributeName":"h","AttributeType":"S"}],
 "BillingMode":"PAY_PER_REQUEST",
 "GlobalSecondaryIndexes":[
  {"IndexName":"g_all","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"ALL"}},
  {"IndexName":"g_keys","KeySchema":[{"AttributeName":"n","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}},
  {"IndexName":"g_multi","KeySchema":[{"AttributeName":"g","KeyType":"HASH"},{"AttributeName":"h","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"},{"AttributeName":"sk","KeyType":"RANGE"}],"Projection":{"ProjectionType":"INCLUDE","NonKeyAttributes":["v"]}}],
 "LocalSecondaryIndexes":[{"IndexName":"l_n","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"n","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`

// streamedTable is indexedTable with a NEW_AND_OLD_IMAGES stream.
var streamedTable = strings.Replace(indexedTable, `"BillingMode":"PAY_PER_REQUEST",`,
	`"BillingMode":"PAY_PER_REQUEST","StreamSpecification":{"StreamEnabled":true,"StreamViewType":"NEW_AND_OLD_IMAGES"},`, 1)

// ordersTable is seed 001's order table: open orders carry GSI2PK, and
// the GSI is on-demand like its table.
const ordersTable = `{"TableName":"orders","KeySchema":[{"AttributeName":"PK","KeyType":"HASH"},{"AttributeName":"SK","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"PK","AttributeType":"S"},{"AttributeName":"SK","AttributeType":"S"},{"AttributeName":"GSI2PK","AttributeType":"S"},{"AttributeName":"GSI2SK","AttributeType":"S"}],
 "BillingMode":"PAY_PER_REQUEST",
 "GlobalSecondaryIndexes":[{"IndexName":"GSI2","KeySchema":[{"AttributeName":"GSI2PK","KeyType":"HASH"},{"AttributeName":"GSI2SK","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`

// ciTable has a table with a sort key, a hash-only GSI and an LSI.
const ciTable = `{"TableName":"cit","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}],
 "AttributeDefinitions":[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"},{"AttributeName":"g","AttributeType":"S"},{"AttributeName":"l","AttributeType":"N"}],
 "BillingMode":"PAY_PER_REQUEST",
 "GlobalSecondaryIndexes":[{"IndexName":"byG","KeySchema":[{"AttributeName":"g","KeyType":"HASH"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}],
 "LocalSecondaryIndexes":[{"IndexName":"byL","KeySchema":[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"l","KeyType":"RANGE"}],"Projection":{"ProjectionType":"KEYS_ONLY"}}]}`
