// DynamoDB fidelity details (issue 19) through @aws-sdk/client-dynamodb and
// @aws-sdk/lib-dynamodb: legacy AttributeUpdates without an Action, updates
// of missing items that only remove, KeyConditions with expression
// parameters, DeleteTable's TableDescription, set ordering, multi-attribute
// GSI key conditions, expression and number limits, and a gzip-compressed
// request body. Each test cites where DynamoDB's answer comes from.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand as RawQueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  batchPutRaw, clientConfig, createTable, deleteTableQuietly, expectError, uniqueName,
} from '../support.mjs';

const client = new DynamoDBClient(clientConfig());
const docClient = DynamoDBDocumentClient.from(client);
after(() => client.destroy());

const INVALID_PATH = 'The document path provided in the update expression is invalid for update';
const MIXED = 'Can not use both expression and non-expression parameters in the same request: ';

describe('fidelity (PK/SK table)', () => {
  let TABLE_NAME;
  before(async () => {
    TABLE_NAME = uniqueName('fid');
    await createTable(client, TABLE_NAME);
  });
  after(async () => deleteTableQuietly(client, TABLE_NAME));

  const getRaw = async (Key, extra = {}) =>
    client.send(new GetItemCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true, ...extra }));

  // B/A.1
  test('AttributeUpdates without an Action is a PUT', async () => {
    // Source: API reference AttributeValueUpdate, Action "PUT (default)";
    // ../shared/cases/behaviour.jsonl dl-updateitem-js-* (checked against DynamoDB).
    const Key = { PK: { S: 'B1' }, SK: { S: 'X' } };
    await client.send(new PutItemCommand({ TableName: TABLE_NAME, Item: { ...Key, b: { S: 'old' } } }));
    const { Attributes } = await client.send(new UpdateItemCommand({
      TableName: TABLE_NAME, Key, AttributeUpdates: { b: { Value: { S: 'x' } } }, ReturnValues: 'ALL_NEW',
    }));
    assert.deepEqual(Attributes, { ...Key, b: { S: 'x' } });
  });

  // B/A.2
  test('a REMOVE-only update of a missing item creates nothing and returns no Attributes', async () => {
    // Source: Alternator test_item.py::test_update_item_non_existent, test_returnvalues.py,
    // test_update_expression.py::test_nested_attribute_remove_from_missing_item (pass against DynamoDB).
    for (const [sk, extra] of [
      ['remove-top', { UpdateExpression: 'REMOVE a' }],
      ['remove-map', { UpdateExpression: 'REMOVE x.y' }],
      ['remove-list', { UpdateExpression: 'REMOVE x[0]' }],
      ['attr-delete', { AttributeUpdates: { a: { Action: 'DELETE' } } }],
    ]) {
      const Key = { PK: 'B2-missing', SK: sk };
      const out = await docClient.send(new UpdateCommand({ TableName: TABLE_NAME, Key, ReturnValues: 'ALL_NEW', ...extra }));
      assert.equal(out.Attributes, undefined, `${sk}: Attributes`);
      const { Item } = await docClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
      assert.equal(Item, undefined, `${sk}: item was created`);
    }
    // An empty AttributeUpdates does create the key-only item (same Alternator test).
    const Key = { PK: 'B2-empty', SK: 'X' };
    const out = await docClient.send(new UpdateCommand({ TableName: TABLE_NAME, Key, AttributeUpdates: {}, ReturnValues: 'ALL_NEW' }));
    assert.deepEqual(out.Attributes, Key);
    // On an existing item, removing below a missing attribute is an invalid path
    // (dynalite updateItem.js "update non-existent nested attribute in existing item").
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: { PK: 'B2-existing', SK: 'X', b: 'str' } }));
    await expectError(docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key: { PK: 'B2-existing', SK: 'X' }, UpdateExpression: 'REMOVE y.a',
    })), 'ValidationException', INVALID_PATH);
    await expectError(docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key: { PK: 'B2-existing', SK: 'X' }, UpdateExpression: 'DELETE b.a :ss',
      ExpressionAttributeValues: { ':ss': new Set(['x']) },
    })), 'ValidationException', INVALID_PATH);
  });

  // B/A.4
  test('KeyConditions with FilterExpression and ProjectionExpression; conflicts', async () => {
    // Source: developer guide LegacyConditionalParameters.KeyConditions ("If a FilterExpression
    // or QueryFilter is present, it will be applied after the items are retrieved");
    // Alternator test_query.py::test_query_filter_expression,
    // test_query_filter.py::test_query_filter_and_projection_expression.
    await batchPutRaw(client, TABLE_NAME, [1, 2, 3, 4].map((i) => ({
      PK: { S: 'B4' }, SK: { S: String(i) }, x: { S: i % 2 ? 'keep' : 'drop' },
    })));
    const KeyConditions = { PK: { AttributeValueList: ['B4'], ComparisonOperator: 'EQ' } };
    const filtered = await docClient.send(new QueryCommand({
      TableName: TABLE_NAME, KeyConditions, FilterExpression: 'x = :k',
      ExpressionAttributeValues: { ':k': 'keep' }, ConsistentRead: true,
    }));
    assert.deepEqual(filtered.Items.map((i) => i.SK), ['1', '3']);
    const projected = await docClient.send(new QueryCommand({
      TableName: TABLE_NAME, KeyConditions, ProjectionExpression: 'SK', ConsistentRead: true,
    }));
    assert.deepEqual(projected.Items, [{ SK: '1' }, { SK: '2' }, { SK: '3' }, { SK: '4' }]);
    await expectError(docClient.send(new QueryCommand({
      TableName: TABLE_NAME, KeyConditions, KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': 'B4' },
    })), 'ValidationException',
    MIXED + 'Non-expression parameters: {KeyConditions} Expression parameters: {KeyConditionExpression}');
    await expectError(docClient.send(new QueryCommand({
      TableName: TABLE_NAME, KeyConditions, ProjectionExpression: 'SK',
      QueryFilter: { x: { AttributeValueList: ['keep'], ComparisonOperator: 'EQ' } },
    })), 'ValidationException',
    MIXED + 'Non-expression parameters: {QueryFilter} Expression parameters: {ProjectionExpression}');
  });

  // B/A.8
  test('set members come back bytewise (SS) and by value (NS)', async () => {
    // Source: conformance tests/tier1/updateItem/basic.test.ts (eu-west-2, 2026-10-09).
    const Key = { PK: { S: 'B8' }, SK: { S: 'X' } };
    await client.send(new PutItemCommand({
      TableName: TABLE_NAME, Item: { ...Key, ss: { SS: ['b', 'a', ''] }, ns: { NS: ['10', '9', '-1'] }, tags: { SS: ['a'] } },
    }));
    let { Item } = await getRaw(Key);
    assert.deepEqual(Item.ss, { SS: ['', 'a', 'b'] });
    assert.deepEqual(Item.ns, { NS: ['-1', '9', '10'] });
    await client.send(new UpdateItemCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'ADD tags :e', ExpressionAttributeValues: { ':e': { SS: [''] } },
    }));
    ({ Item } = await getRaw(Key));
    assert.deepEqual(Item.tags, { SS: ['', 'a'] });
  });

  // B/A.10
  test('expression limits: nesting levels, list_append, unknown functions, paths', async () => {
    // Source: Alternator test_projection_expression.py (path nesting levels,
    // test_projection_expression_path), test_update_expression.py; conformance
    // tests/tier1/updateItem/paths.test.ts.
    const Key = { PK: 'B10', SK: 'X' };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: { ...Key, a: 'x', l: ['a', 'b', 'c'], m: { k: 'v' } } }));
    await docClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ProjectionExpression: 'a' + '.b'.repeat(31) }));
    await expectError(docClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ProjectionExpression: 'a' + '.b'.repeat(32) })),
      'ValidationException', 'Invalid ProjectionExpression: The document path has too many nesting levels; nesting levels: 33');
    await expectError(docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'SET l2 = list_append(list_append(:a, :b), :c)',
      ExpressionAttributeValues: { ':a': [1], ':b': [2], ':c': [3] },
    })), 'ValidationException',
    'Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append');
    const ok = await docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'SET l2 = list_append(if_not_exists(l2, :e), :v)',
      ExpressionAttributeValues: { ':e': [], ':v': [1, 2] }, ReturnValues: 'UPDATED_NEW',
    }));
    assert.deepEqual(ok.Attributes, { l2: [1, 2] });
    await expectError(docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'SET b = nosuchfn(a)',
    })), 'ValidationException', 'Invalid UpdateExpression: Invalid function name; function: nosuchfn');
    await docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'SET l[5] = :v', ExpressionAttributeValues: { ':v': 'd' },
    }));
    const { Item } = await docClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
    assert.deepEqual(Item.l, ['a', 'b', 'c', 'd']);
    await expectError(docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'SET m.x.y = :v', ExpressionAttributeValues: { ':v': 'v' },
    })), 'ValidationException', INVALID_PATH);
    const proj = await docClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ProjectionExpression: 'm[0]', ConsistentRead: true }));
    assert.deepEqual(proj.Item, {});
  });

  // B/A.11
  test('number overflow in arithmetic; REMOVE l[1] keeps the other numbers exactly', async () => {
    // Source: Alternator test_number.py::test_update_expression_plus_imprecise.
    const Key = { PK: { S: 'B11' }, SK: { S: 'X' } };
    await expectError(client.send(new UpdateItemCommand({
      TableName: TABLE_NAME, Key, UpdateExpression: 'SET n = :a + :b',
      ExpressionAttributeValues: { ':a': { N: '1e50' }, ':b': { N: '1' } },
    })), 'ValidationException', 'Number overflow. Attempting to store a number with magnitude larger than supported range');
    const big = '12345678901234567890123456789012345678';
    await client.send(new PutItemCommand({
      TableName: TABLE_NAME, Item: { ...Key, l: { L: [{ N: '1' }, { N: '2.50' }, { N: '-3e2' }, { N: big }] } },
    }));
    await client.send(new UpdateItemCommand({ TableName: TABLE_NAME, Key, UpdateExpression: 'REMOVE l[1]' }));
    const { Item } = await getRaw(Key);
    assert.deepEqual(Item.l, { L: [{ N: '1' }, { N: '-300' }, { N: big }] });
  });
});

// B/A.6
test('DeleteTable answers only the DELETING summary, also with a GSI and an LSI', async () => {
  // Source: Alternator test_table.py::test_delete_table_description,
  // test_delete_table_description_with_si.
  const want = ['BillingModeSummary', 'ItemCount', 'ProvisionedThroughput', 'TableArn', 'TableId',
    'TableName', 'TableSizeBytes', 'TableStatus'];
  const name = uniqueName('fiddelsi');
  try {
    await createTable(client, name, {
      extra: {
        AttributeDefinitions: ['PK', 'SK', 'G', 'L'].map((n) => ({ AttributeName: n, AttributeType: 'S' })),
        GlobalSecondaryIndexes: [{ IndexName: 'gsi', KeySchema: [{ AttributeName: 'G', KeyType: 'HASH' }], Projection: { ProjectionType: 'ALL' } }],
        LocalSecondaryIndexes: [{
          IndexName: 'lsi', KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'L', KeyType: 'RANGE' }],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        }],
      },
    });
    const { TableDescription } = await client.send(new DeleteTableCommand({ TableName: name }));
    assert.deepEqual(Object.keys(TableDescription).sort(), want);
    assert.equal(TableDescription.TableStatus, 'DELETING');
  } finally {
    await deleteTableQuietly(client, name);
  }
});

// B/A.9
test('multi-attribute GSI: RANGE attributes need equality left to right; KeyConditions refused', async () => {
  // Source: conformance tests/tier1/query/multiAttributeGsiKey.test.ts;
  // Alternator test_gsi_composite_keys.py::test_gsi_composite_keyconditions_blocked.
  const name = uniqueName('fidmulti');
  try {
    await createTable(client, name, {
      hash: ['pk', 'S'], range: null,
      extra: {
        AttributeDefinitions: ['pk', 'h', 'a', 'b', 'c'].map((n) => ({ AttributeName: n, AttributeType: 'S' })),
        GlobalSecondaryIndexes: [{
          IndexName: 'gsi',
          KeySchema: [{ AttributeName: 'h', KeyType: 'HASH' }, ...['a', 'b', 'c'].map((n) => ({ AttributeName: n, KeyType: 'RANGE' }))],
          Projection: { ProjectionType: 'ALL' },
        }],
      },
    });
    const values = { ':h': { S: 'o1' }, ':a': { S: 'T' }, ':b': { S: 'live' }, ':c': { S: 'x' } };
    const query = (KeyConditionExpression) => client.send(new RawQueryCommand({
      TableName: name, IndexName: 'gsi', KeyConditionExpression,
      ExpressionAttributeValues: Object.fromEntries(Object.entries(values).filter(([k]) => KeyConditionExpression.includes(k))),
    }));
    await query('h = :h AND a = :a AND b = :b AND c = :c');
    await expectError(query('h = :h AND a = :a AND c = :c'), 'ValidationException',
      'RANGE key attributes b must have equality conditions specified in the query because a condition is present on key attribute c');
    await expectError(query('h = :h AND b = :b'), 'ValidationException',
      'RANGE key attributes a must have equality conditions specified in the query because a condition is present on key attribute b');
    await expectError(client.send(new RawQueryCommand({
      TableName: name, IndexName: 'gsi',
      KeyConditions: {
        h: { AttributeValueList: [{ S: 'o1' }], ComparisonOperator: 'EQ' },
        a: { AttributeValueList: [{ S: 'T' }], ComparisonOperator: 'EQ' },
      },
    })), 'ValidationException');
  } finally {
    await deleteTableQuietly(client, name);
  }
});

// Request compression. @aws-sdk/client-dynamodb 3.1162.0 has no request
// compression for DynamoDB operations (no operation carries the
// requestCompression trait, so requestMinCompressionSizeBytes does nothing), so
// a build-step middleware gzips the serialized body and sets
// Content-Encoding: gzip before signing.
test('a gzip-compressed request body (Content-Encoding: gzip): PutItem, then GetItem', async () => {
  // Source: Alternator test_compressed_request.py (PR scylladb/scylladb#27049: DynamoDB
  // accepts gzip request bodies); docs/dynamodb-behaviour.md (HTTP edge).
  const gz = new DynamoDBClient(clientConfig());
  const sent = [];
  gz.middlewareStack.add((next) => async (args) => {
    const req = args.request;
    // The serializer leaves a string or (smithy's JSON codec) a Uint8Array.
    if (typeof req.body === 'string' || req.body instanceof Uint8Array) {
      req.body = gzipSync(typeof req.body === 'string' ? Buffer.from(req.body) : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength));
      for (const h of Object.keys(req.headers)) if (h.toLowerCase() === 'content-length') delete req.headers[h];
      req.headers['content-encoding'] = 'gzip';
      req.headers['content-length'] = String(req.body.length);
    }
    return next(args);
  }, { step: 'build', priority: 'high', name: 'gzipRequestBody' });
  gz.middlewareStack.add((next) => async (args) => {
    sent.push({ encoding: args.request.headers['content-encoding'], body: args.request.body });
    return next(args);
  }, { step: 'finalizeRequest', priority: 'low', name: 'recordRequest' });
  const doc = DynamoDBDocumentClient.from(gz);
  const name = uniqueName('fidgzip');
  try {
    await createTable(client, name);
    const Item = { PK: 'GZ', SK: 'X', text: 'compressible '.repeat(2000), n: 42 };
    await doc.send(new PutCommand({ TableName: name, Item }));
    const put = sent.at(-1);
    assert.equal(put.encoding, 'gzip');
    assert.equal(JSON.parse(gunzipSync(put.body).toString()).Item.text.S, Item.text, 'the body sent is the gzipped request');
    assert.ok(put.body.length < Item.text.length / 10, `gzipped body is ${put.body.length} bytes`);
    const got = await doc.send(new GetCommand({ TableName: name, Key: { PK: 'GZ', SK: 'X' }, ConsistentRead: true }));
    assert.deepEqual(got.Item, Item);
    assert.equal(sent.at(-1).encoding, 'gzip');
  } finally {
    gz.destroy();
    await deleteTableQuietly(client, name);
  }
});
