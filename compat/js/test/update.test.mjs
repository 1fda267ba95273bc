// The seed documents' update practices through @aws-sdk/lib-dynamodb:
// seed 000's "Update Item" snippet (SET #name = :name, UpdatedAt = :updatedAt)
// and like counter (SET LikeCount = LikeCount + :inc), seed 001's optimistic
// locking (version = :v, then SET version = version + :one) and
// create-if-absent (attribute_not_exists(PK)).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clientConfig, createTable, deleteTableQuietly, uniqueName } from '../support.mjs';

const client = new DynamoDBClient(clientConfig());
const docClient = DynamoDBDocumentClient.from(client);
let TABLE_NAME;

describe('seed update practices', () => {
  before(async () => {
    TABLE_NAME = uniqueName('update');
    await createTable(client, TABLE_NAME);
  });
  after(async () => deleteTableQuietly(client, TABLE_NAME));

  test('seed 000 "Update Item": SET #name = :name, UpdatedAt = :updatedAt', async () => {
    const userId = 'u1';
    await docClient.send(new PutCommand({
      TableName: TABLE_NAME,
      Item: { PK: `USER#${userId}`, SK: 'PROFILE', EntityType: 'User', Name: 'John Doe', UpdatedAt: '2024-01-01T00:00:00Z' },
    }));
    const newName = 'Jane Doe';
    const updatedAt = new Date().toISOString();
    // The seed's snippet, verbatim apart from ReturnValues.
    const { Attributes } = await docClient.send(new UpdateCommand({
      TableName: TABLE_NAME,
      Key: {
        PK: `USER#${userId}`,
        SK: 'PROFILE',
      },
      UpdateExpression: 'SET #name = :name, UpdatedAt = :updatedAt',
      ExpressionAttributeNames: {
        '#name': 'Name',
      },
      ExpressionAttributeValues: {
        ':name': newName,
        ':updatedAt': updatedAt,
      },
      ReturnValues: 'ALL_NEW',
    }));
    assert.deepEqual(Attributes, { PK: 'USER#u1', SK: 'PROFILE', EntityType: 'User', Name: newName, UpdatedAt: updatedAt });
  });

  test('seed 000 like counter: SET LikeCount = LikeCount + :inc, and a missing counter fails', async () => {
    const Key = { PK: 'USER#author', SK: 'POST#2024-01-01#p1' };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: { ...Key, LikeCount: 0 } }));
    for (let i = 0; i < 5; i++) {
      await docClient.send(new UpdateCommand({
        TableName: TABLE_NAME, Key,
        UpdateExpression: 'SET LikeCount = LikeCount + :inc',
        ExpressionAttributeValues: { ':inc': 1 },
      }));
    }
    const { Item } = await docClient.send(new GetCommand({ TableName: TABLE_NAME, Key, ConsistentRead: true }));
    assert.equal(Item.LikeCount, 5);
    // On an item without LikeCount, DynamoDB refuses the arithmetic.
    await assert.rejects(docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key: { PK: 'USER#author', SK: 'POST#none' },
      UpdateExpression: 'SET LikeCount = LikeCount + :inc',
      ExpressionAttributeValues: { ':inc': 1 },
    })), (e) => e.name === 'ValidationException' &&
      e.message === 'The provided expression refers to an attribute that does not exist in the item');
  });

  test('seed 001 optimistic locking: version = :v then SET version = version + :one', async () => {
    const Key = { PK: 'USER#42', SK: 'PROFILE' };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: { ...Key, version: 1, email: 'a@example.com' } }));
    const bump = (v) => docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key,
      UpdateExpression: 'SET email = :e, version = version + :one',
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: { ':e': `v${v}@example.com`, ':one': 1, ':v': v },
      ReturnValues: 'UPDATED_NEW',
    }));
    const { Attributes } = await bump(1);
    assert.deepEqual(Attributes, { email: 'v1@example.com', version: 2 });
    await assert.rejects(bump(1), (e) => e.name === 'ConditionalCheckFailedException' &&
      e.message === 'The conditional request failed');
  });

  test('seed 001 create-if-absent: attribute_not_exists(PK)', async () => {
    const Item = { PK: 'USERNAME#asha', SK: 'USERNAME' };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item, ConditionExpression: 'attribute_not_exists(PK)' }));
    await assert.rejects(
      docClient.send(new PutCommand({ TableName: TABLE_NAME, Item, ConditionExpression: 'attribute_not_exists(PK)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })),
      (e) => e.name === 'ConditionalCheckFailedException');
  });

  test('ADD and DELETE on sets, REMOVE of list elements, list_append', async () => {
    const Key = { PK: 'DOC#1', SK: 'X' };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: { ...Key, tags: new Set(['a', 'b']), entries: ['x', 'y', 'z'] } }));
    const { Attributes } = await docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key,
      UpdateExpression: 'ADD tags :add REMOVE entries[0], entries[2] SET history = list_append(if_not_exists(history, :empty), :entry)',
      ExpressionAttributeValues: { ':add': new Set(['c']), ':empty': [], ':entry': ['created'] },
      ReturnValues: 'ALL_NEW',
    }));
    assert.deepEqual([...Attributes.tags].sort(), ['a', 'b', 'c']);
    assert.deepEqual(Attributes.entries, ['y']);
    assert.deepEqual(Attributes.history, ['created']);
    const del = await docClient.send(new UpdateCommand({
      TableName: TABLE_NAME, Key,
      UpdateExpression: 'DELETE tags :all',
      ExpressionAttributeValues: { ':all': new Set(['a', 'b', 'c']) },
      ReturnValues: 'ALL_NEW',
    }));
    assert.equal(del.Attributes.tags, undefined, 'a set emptied by DELETE is removed');
  });
});
