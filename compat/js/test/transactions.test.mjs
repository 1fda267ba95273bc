// Transactions through @aws-sdk/lib-dynamodb, as the seed documents use them:
//  - seed 000 (shared/seeds/000_*.txt) "Transactions": like a post = Put the Like
//    item + Update the post's LikeCount, one TransactWriteCommand;
//  - seed 002 (shared/seeds/002_*.txt) createUserAndOrder: the User and the Order
//    item written together ("either both the User and the Order are created, or
//    neither is"), read back with the seed's getUserOrders;
//  - TransactGetCommand, TransactionCanceledException and its CancellationReasons,
//    and ClientRequestToken idempotency.
// Expected answers are real DynamoDB's (API reference: TransactWriteItems,
// TransactGetItems, TransactionCanceledException; docs/research-transactions.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { clientConfig, createTable, deleteTableQuietly, expectError, uniqueName } from '../support.mjs';

// ---- client setup: the only part that differs from the seed documents ----------
const client = new DynamoDBClient(clientConfig());
const docClient = DynamoDBDocumentClient.from(client);
let TABLE_NAME; // seed 000's table
let ECOMMERCE_TABLE; // seed 002's "EcommerceTable", unique per run
// --------------------------------------------------------------------------------

const CANCELLED = 'Transaction cancelled, please refer cancellation reasons for specific reasons ';

// ---- seed 000 "Transactions" snippet, verbatim (wrapped in a function) -----------
async function likePost(userId, postId, postAuthorId, timestamp) {
  await docClient.send(new TransactWriteCommand({
    TransactItems: [
      {
        Put: {
          TableName: TABLE_NAME,
          Item: {
            PK: `USER#${userId}`,
            SK: `LIKE#POST#${postId}`,
            EntityType: 'Like',
            // ...
          },
        },
      },
      {
        Update: {
          TableName: TABLE_NAME,
          Key: {
            PK: `USER#${postAuthorId}`,
            SK: `POST#${timestamp}#${postId}`,
          },
          UpdateExpression: 'SET LikeCount = LikeCount + :inc',
          ExpressionAttributeValues: {
            ':inc': 1,
          },
        },
      },
    ],
  }));
}

// The same snippet with the guard the seed's Put lacks: the Like is only created
// if absent (the seed's own "Conditional writes - Prevent race conditions"
// practice), so a second like by the same user cancels the whole transaction.
async function likePostOnce(userId, postId, postAuthorId, timestamp) {
  await docClient.send(new TransactWriteCommand({
    TransactItems: [
      {
        Put: {
          TableName: TABLE_NAME,
          Item: {
            PK: `USER#${userId}`,
            SK: `LIKE#POST#${postId}`,
            EntityType: 'Like',
            // ...
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      {
        Update: {
          TableName: TABLE_NAME,
          Key: {
            PK: `USER#${postAuthorId}`,
            SK: `POST#${timestamp}#${postId}`,
          },
          UpdateExpression: 'SET LikeCount = LikeCount + :inc',
          ExpressionAttributeValues: {
            ':inc': 1,
          },
        },
      },
    ],
  }));
}

// ---- seed 002 snippets, verbatim except "EcommerceTable" -> ECOMMERCE_TABLE ------
// 1. Storing data
async function createUserAndOrder(userId, email, orderId, amount) {
  const params = {
    TransactItems: [
      {
        Put: {
          TableName: ECOMMERCE_TABLE,
          Item: {
            PK: `USER#${userId}`,
            SK: `METADATA#${userId}`,
            Email: email,
            Type: "User"
          }
        }
      },
      {
        Put: {
          TableName: ECOMMERCE_TABLE,
          Item: {
            PK: `USER#${userId}`,
            SK: `ORDER#${orderId}`,
            Amount: amount,
            Type: "Order"
          }
        }
      }
    ]
  };
  await docClient.send(new TransactWriteCommand(params));
}

// 2. Querying all orders for a user
async function getUserOrders(userId) {
  const params = {
    TableName: ECOMMERCE_TABLE,
    KeyConditionExpression: "PK = :pk AND begins_with(SK, :sk)",
    ExpressionAttributeValues: {
      ":pk": `USER#${userId}`,
      ":sk": "ORDER#"
    }
  };
  const result = await docClient.send(new QueryCommand(params));
  return result.Items;
}
// --------------------------------------------------------------------------------

const T0 = 1704067200000;

async function putPost(authorId, timestamp, postId, extra = {}) {
  await docClient.send(new PutCommand({
    TableName: TABLE_NAME,
    Item: { PK: `USER#${authorId}`, SK: `POST#${timestamp}#${postId}`, EntityType: 'Post', PostId: postId, LikeCount: 0, ...extra },
  }));
}

async function getItem(table, Key) {
  const { Item } = await docClient.send(new GetCommand({ TableName: table, Key, ConsistentRead: true }));
  return Item;
}

const postKey = (authorId, timestamp, postId) => ({ PK: `USER#${authorId}`, SK: `POST#${timestamp}#${postId}` });
const likeKey = (userId, postId) => ({ PK: `USER#${userId}`, SK: `LIKE#POST#${postId}` });

describe('transactions through lib-dynamodb', () => {
  const run = randomUUID().slice(0, 8);

  before(async () => {
    TABLE_NAME = uniqueName('tx');
    ECOMMERCE_TABLE = uniqueName('ecommerce');
    await Promise.all([createTable(client, TABLE_NAME), createTable(client, ECOMMERCE_TABLE)]);
  });
  after(async () => {
    await Promise.all([deleteTableQuietly(client, TABLE_NAME), deleteTableQuietly(client, ECOMMERCE_TABLE)]);
    client.destroy();
  });

  test('seed 000 like-a-post: each like is written with its count', async () => {
    const author = `${run}-author`;
    await putPost(author, T0, 'p1');
    for (const u of ['u1', 'u2', 'u3']) await likePost(`${run}-${u}`, 'p1', author, T0);
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p1'))).LikeCount, 3);
    for (const u of ['u1', 'u2', 'u3']) {
      const like = await getItem(TABLE_NAME, likeKey(`${run}-${u}`, 'p1'));
      assert.deepEqual(like, { ...likeKey(`${run}-${u}`, 'p1'), EntityType: 'Like' });
    }
  });

  test('seed 000 snippet as written has no guard: liking twice counts twice', async () => {
    // The seed's Put has no ConditionExpression, so on DynamoDB a repeated like
    // overwrites the Like item and increments the counter again.
    const author = `${run}-author2`;
    await putPost(author, T0, 'p2');
    await likePost(`${run}-u1`, 'p2', author, T0);
    await likePost(`${run}-u1`, 'p2', author, T0);
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p2'))).LikeCount, 2);
  });

  test('guarded like: liking twice is cancelled (ConditionalCheckFailed) and the counter is unchanged', async () => {
    const author = `${run}-author3`;
    await putPost(author, T0, 'p3');
    await likePostOnce(`${run}-u1`, 'p3', author, T0);
    await likePostOnce(`${run}-u2`, 'p3', author, T0);
    const err = await expectError(likePostOnce(`${run}-u1`, 'p3', author, T0), 'TransactionCanceledException');
    assert.equal(err.name, 'TransactionCanceledException');
    assert.deepEqual(err.CancellationReasons, [
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
      { Code: 'None' },
    ]);
    assert.equal(err.message, `${CANCELLED}[ConditionalCheckFailed, None]`);
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p3'))).LikeCount, 2);
  });

  test('concurrent guarded likes: the count equals the number of distinct likers', async () => {
    const author = `${run}-author4`;
    await putPost(author, T0, 'p4');
    // 10 users, each likes 3 times concurrently: 10 likes must be counted.
    const attempts = [];
    for (let i = 0; i < 10; i++) for (let k = 0; k < 3; k++) attempts.push(`${run}-c${i}`);
    const results = await Promise.allSettled(attempts.map((u) => likePostOnce(u, 'p4', author, T0)));
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    for (const r of results) {
      if (r.status === 'rejected') {
        assert.equal(r.reason.name, 'TransactionCanceledException', String(r.reason));
        const codes = r.reason.CancellationReasons.map((x) => x.Code);
        assert.ok(['ConditionalCheckFailed', 'TransactionConflict'].includes(codes[0]) || codes[1] === 'TransactionConflict',
          `unexpected reasons ${JSON.stringify(codes)}`);
      }
    }
    const count = (await getItem(TABLE_NAME, postKey(author, T0, 'p4'))).LikeCount;
    assert.equal(count, ok, 'LikeCount equals the successful transactions');
    // ... and the Like items that exist: a like and its count are written together.
    let likes = 0;
    for (let i = 0; i < 10; i++) if (await getItem(TABLE_NAME, likeKey(`${run}-c${i}`, 'p4'))) likes++;
    assert.equal(likes, ok);
    assert.ok(ok <= 10 && ok >= 1, `successful likes ${ok}`);
  });

  test('seed 002 createUserAndOrder writes both items; getUserOrders finds the order', async () => {
    const userId = `${run}-cust`;
    await createUserAndOrder(userId, 'asha@example.com', 'o-1001', 42.5);
    const user = await getItem(ECOMMERCE_TABLE, { PK: `USER#${userId}`, SK: `METADATA#${userId}` });
    assert.deepEqual(user, { PK: `USER#${userId}`, SK: `METADATA#${userId}`, Email: 'asha@example.com', Type: 'User' });
    await createUserAndOrder(userId, 'asha@example.com', 'o-1002', 7);
    const orders = await getUserOrders(userId);
    assert.deepEqual(orders, [
      { PK: `USER#${userId}`, SK: 'ORDER#o-1001', Amount: 42.5, Type: 'Order' },
      { PK: `USER#${userId}`, SK: 'ORDER#o-1002', Amount: 7, Type: 'Order' },
    ]);
  });

  test('seed 002 createUserAndOrder: an invalid order cancels the user too (both or neither)', async () => {
    const userId = `${run}-cust2`;
    // The seed's two Puts, with the order's sort key given as a number: the
    // order fails (ValidationError), so the user must not be written either.
    const err = await expectError(docClient.send(new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: ECOMMERCE_TABLE, Item: { PK: `USER#${userId}`, SK: `METADATA#${userId}`, Email: 'x@example.com', Type: 'User' } } },
        { Put: { TableName: ECOMMERCE_TABLE, Item: { PK: `USER#${userId}`, SK: 1001, Amount: 1, Type: 'Order' } } },
      ],
    })), 'TransactionCanceledException');
    assert.deepEqual(err.CancellationReasons, [
      { Code: 'None' },
      { Code: 'ValidationError', Message: 'One or more parameter values were invalid: Type mismatch for key SK expected: S actual: N' },
    ]);
    assert.equal(await getItem(ECOMMERCE_TABLE, { PK: `USER#${userId}`, SK: `METADATA#${userId}` }), undefined);
    assert.deepEqual(await getUserOrders(userId), []);
  });

  test('TransactGetCommand: responses in request order, {} for a missing item, projection', async () => {
    const author = `${run}-author5`;
    await putPost(author, T0, 'p5', { Title: 'Hello' });
    await putPost(author, T0 + 1, 'p5b', { Title: 'Other' });
    await likePostOnce(`${run}-g1`, 'p5', author, T0);
    const { Responses } = await docClient.send(new TransactGetCommand({
      TransactItems: [
        { Get: { TableName: TABLE_NAME, Key: postKey(author, T0, 'p5') } },
        { Get: { TableName: TABLE_NAME, Key: likeKey(`${run}-nobody`, 'p5') } },
        { Get: { TableName: TABLE_NAME, Key: likeKey(`${run}-g1`, 'p5') } },
        { Get: { TableName: TABLE_NAME, Key: postKey(author, T0 + 1, 'p5b'), ProjectionExpression: 'LikeCount, #t',
          ExpressionAttributeNames: { '#t': 'Title' } } },
      ],
    }));
    assert.equal(Responses.length, 4);
    assert.deepEqual(Responses[0].Item, { ...postKey(author, T0, 'p5'), EntityType: 'Post', PostId: 'p5', LikeCount: 1, Title: 'Hello' });
    assert.equal(Responses[1].Item, undefined);
    assert.deepEqual(Responses[2].Item, { ...likeKey(`${run}-g1`, 'p5'), EntityType: 'Like' });
    // Only the projected attributes; the key is not added.
    assert.deepEqual(Responses[3].Item, { LikeCount: 0, Title: 'Other' });
  });

  test('TransactionCanceledException: reasons for every action, in order', async () => {
    const author = `${run}-author6`;
    await putPost(author, T0, 'p6');
    await putPost(author, T0 + 1, 'p6b');
    const err = await expectError(docClient.send(new TransactWriteCommand({
      TransactItems: [
        { ConditionCheck: { TableName: TABLE_NAME, Key: postKey(author, T0 + 1, 'p6b'), ConditionExpression: 'attribute_exists(PK)' } },
        { Put: { TableName: TABLE_NAME, Item: { ...likeKey(`${run}-z`, 'p6'), EntityType: 'Like' } } },
        { Update: { TableName: TABLE_NAME, Key: postKey(author, T0, 'p6'), UpdateExpression: 'SET LikeCount = LikeCount + :inc',
          ConditionExpression: 'LikeCount > :min', ExpressionAttributeValues: { ':inc': 1, ':min': 100 } } },
        { Delete: { TableName: TABLE_NAME, Key: likeKey(`${run}-never`, 'p6'), ConditionExpression: 'attribute_exists(PK)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
      ],
    })), 'TransactionCanceledException');
    // Every failed condition is reported; no short-circuit after the first.
    assert.deepEqual(err.CancellationReasons.map((r) => r.Code), ['None', 'None', 'ConditionalCheckFailed', 'ConditionalCheckFailed']);
    assert.deepEqual(err.CancellationReasons[0], { Code: 'None' });
    assert.equal(err.CancellationReasons[3].Item, undefined, 'no Item for a missing item');
    assert.equal(err.message, `${CANCELLED}[None, None, ConditionalCheckFailed, ConditionalCheckFailed]`);
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p6'))).LikeCount, 0);
    assert.equal(await getItem(TABLE_NAME, likeKey(`${run}-z`, 'p6')), undefined);
  });

  test('ReturnValuesOnConditionCheckFailure ALL_OLD returns the item in the reason', async () => {
    const author = `${run}-author7`;
    await putPost(author, T0, 'p7');
    const err = await expectError(docClient.send(new TransactWriteCommand({
      TransactItems: [
        { Update: { TableName: TABLE_NAME, Key: postKey(author, T0, 'p7'), UpdateExpression: 'SET LikeCount = LikeCount + :inc',
          ConditionExpression: 'LikeCount > :min', ExpressionAttributeValues: { ':inc': 1, ':min': 100 },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } },
      ],
    })), 'TransactionCanceledException');
    assert.equal(err.CancellationReasons.length, 1);
    assert.equal(err.CancellationReasons[0].Code, 'ConditionalCheckFailed');
    assert.equal(err.CancellationReasons[0].Message, 'The conditional request failed');
    // The exception is not unmarshalled by lib-dynamodb: Item is in AttributeValue form.
    assert.deepEqual(err.CancellationReasons[0].Item, {
      PK: { S: `USER#${author}` }, SK: { S: `POST#${T0}#p7` }, EntityType: { S: 'Post' }, PostId: { S: 'p7' }, LikeCount: { N: '0' },
    });
  });

  test('ClientRequestToken: same token and request twice applies once', async () => {
    const author = `${run}-author8`;
    await putPost(author, T0, 'p8');
    const token = randomUUID();
    const req = () => new TransactWriteCommand({
      ClientRequestToken: token,
      TransactItems: [
        { Put: { TableName: TABLE_NAME, Item: { ...likeKey(`${run}-idem`, 'p8'), EntityType: 'Like' } } },
        { Update: { TableName: TABLE_NAME, Key: postKey(author, T0, 'p8'), UpdateExpression: 'SET LikeCount = LikeCount + :inc',
          ExpressionAttributeValues: { ':inc': 1 } } },
      ],
    });
    await docClient.send(req());
    await docClient.send(req()); // a retry: succeeds without running again
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p8'))).LikeCount, 1);
    // A different token is a different transaction.
    await docClient.send(new TransactWriteCommand({ ...req().input, ClientRequestToken: randomUUID() }));
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p8'))).LikeCount, 2);
  });

  test('ClientRequestToken: same token with a different request -> IdempotentParameterMismatchException', async () => {
    const author = `${run}-author9`;
    await putPost(author, T0, 'p9');
    const token = randomUUID();
    const upd = (inc) => new TransactWriteCommand({
      ClientRequestToken: token,
      TransactItems: [
        { Update: { TableName: TABLE_NAME, Key: postKey(author, T0, 'p9'), UpdateExpression: 'SET LikeCount = LikeCount + :inc',
          ExpressionAttributeValues: { ':inc': inc } } },
      ],
    });
    await docClient.send(upd(1));
    const err = await expectError(docClient.send(upd(5)), 'IdempotentParameterMismatchException');
    assert.equal(err.name, 'IdempotentParameterMismatchException');
    assert.equal((await getItem(TABLE_NAME, postKey(author, T0, 'p9'))).LikeCount, 1);
  });
});
