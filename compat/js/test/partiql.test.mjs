// PartiQL through the JS SDK v3 (issue 23): ExecuteStatementCommand,
// BatchExecuteStatementCommand and ExecuteTransactionCommand of
// @aws-sdk/client-dynamodb, and the document client's ExecuteStatementCommand
// (native JS values as parameters and items). Expected answers are real
// DynamoDB's as the conformance suite captured them
// (../shared/conformance/tests/tier2/partiql, October 2026) and the API
// references of the three operations.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BatchExecuteStatementCommand,
  ExecuteStatementCommand,
  ExecuteTransactionCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ExecuteStatementCommand as DocExecuteStatementCommand } from '@aws-sdk/lib-dynamodb';
import { batchPutRaw, createTable, deleteTableQuietly, expectError, makeClient, uniqueName } from '../support.mjs';

const client = makeClient();
const doc = DynamoDBDocumentClient.from(client);
let TABLE;

before(async () => {
  TABLE = uniqueName('pq');
  await createTable(client, TABLE);
});
after(async () => {
  await deleteTableQuietly(client, TABLE);
  client.destroy();
});

test('INSERT, SELECT with parameters, and INSERT of an existing item', async () => {
  // executeStatement.test.ts: INSERT is not an upsert (DuplicateItemException).
  const insert = `INSERT INTO "${TABLE}" VALUE {'PK': ?, 'SK': 'a', 'tags': <<'x', 'y'>>}`;
  const res = await client.send(new ExecuteStatementCommand({ Statement: insert, Parameters: [{ S: 'u1' }] }));
  assert.deepEqual(res.Items, []);
  await expectError(client.send(new ExecuteStatementCommand({ Statement: insert, Parameters: [{ S: 'u1' }] })),
    'DuplicateItemException', 'Duplicate primary key exists in table');
  const got = await client.send(new ExecuteStatementCommand({
    Statement: `SELECT PK, tags FROM "${TABLE}" WHERE PK = ? AND contains(tags, 'y')`, Parameters: [{ S: 'u1' }],
  }));
  assert.deepEqual(got.Items, [{ PK: { S: 'u1' }, tags: { SS: ['x', 'y'] } }]);
});

test('the document client takes and returns native values', async () => {
  await doc.send(new DocExecuteStatementCommand({
    Statement: `INSERT INTO "${TABLE}" VALUE {'PK': ?, 'SK': ?, 'n': ?, 'm': ?}`,
    Parameters: ['u2', 'b', 42, { parts: [1, 'two'] }],
  }));
  const res = await doc.send(new DocExecuteStatementCommand({
    Statement: `SELECT n, m.parts[1] FROM "${TABLE}" WHERE PK = ? AND SK = ?`, Parameters: ['u2', 'b'],
  }));
  assert.deepEqual(res.Items, [{ n: 42, 'parts[1]': 'two' }]); // a path's name keeps its list index
});

test('BatchExecuteStatement answers each statement on its own', async () => {
  // batchExecuteStatement.test.ts.
  const res = await client.send(new BatchExecuteStatementCommand({
    Statements: [
      { Statement: `UPDATE "${TABLE}" SET n = n + 1 WHERE PK = 'u2' AND SK = 'b'` },
      { Statement: `UPDATE "${TABLE}" SET n = 1 WHERE PK = 'nobody' AND SK = 'b'` },
    ],
  }));
  assert.equal(res.Responses.length, 2);
  assert.equal(res.Responses[0].Error, undefined);
  assert.equal(res.Responses[1].Error.Code, 'ConditionalCheckFailed');
});

test('ExecuteTransaction is all or nothing', async () => {
  // executeTransaction.test.ts; API_CancellationReason.html.
  await assert.rejects(client.send(new ExecuteTransactionCommand({
    TransactStatements: [
      { Statement: `INSERT INTO "${TABLE}" VALUE {'PK': 'u3', 'SK': 'a'}` },
      { Statement: `INSERT INTO "${TABLE}" VALUE {'PK': 'u1', 'SK': 'a'}` },
    ],
  })), (err) => {
    assert.equal(err.name, 'TransactionCanceledException');
    assert.deepEqual(err.CancellationReasons.map((r) => r.Code), ['None', 'DuplicateItem']);
    return true;
  });
  const res = await client.send(new ExecuteStatementCommand({ Statement: `SELECT * FROM "${TABLE}" WHERE PK = 'u3'` }));
  assert.deepEqual(res.Items, []);
});

test('a SELECT of a partition pages by NextToken and returns what Query returns', async () => {
  // API_ExecuteStatement.html (Limit, NextToken); developer guide,
  // ql-reference.select.html: a WHERE fixing the partition key is a Query.
  const p = 'part';
  await batchPutRaw(client, TABLE, Array.from({ length: 9 }, (_, i) => ({ PK: { S: p }, SK: { S: `I#${String(i).padStart(2, '0')}` }, v: { N: String(i) } })));
  const want = (await client.send(new QueryCommand({
    TableName: TABLE, KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': { S: p } }, ConsistentRead: true,
  }))).Items;
  const got = [];
  let NextToken;
  let pages = 0;
  do {
    const out = await client.send(new ExecuteStatementCommand({
      Statement: `SELECT * FROM "${TABLE}" WHERE PK = ?`, Parameters: [{ S: p }], Limit: 4, NextToken, ConsistentRead: true,
    }));
    got.push(...out.Items);
    NextToken = out.NextToken;
    pages += 1;
    assert.ok(pages <= 10, 'NextToken never ended');
  } while (NextToken);
  assert.deepEqual(got, want);
  assert.ok(pages >= 3, `Limit 4 over 9 items: ${pages} pages`);
});

test('binary values go through a transaction and a batch', async () => {
  await client.send(new ExecuteTransactionCommand({
    TransactStatements: [{ Statement: `INSERT INTO "${TABLE}" VALUE {'PK': ?, 'SK': 'a', 'b': ?}`, Parameters: [{ S: 'bin' }, { B: Uint8Array.from([0, 1, 255]) }] }],
  }));
  const out = await client.send(new BatchExecuteStatementCommand({ Statements: [{ Statement: `SELECT b FROM "${TABLE}" WHERE PK = ? AND SK = 'a'`, Parameters: [{ S: 'bin' }] }] }));
  assert.deepEqual([...out.Responses[0].Item.b.B], [0, 1, 255]);
});
