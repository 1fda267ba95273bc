// The JavaScript snippets of the seed document "Designing Dynamodb Tables"
// (/work/shared/seeds/000_*.txt), run unmodified against the endpoint. Only the
// client setup (endpoint, dummy credentials) and TABLE_NAME differ from the doc.
//
// In scope: the Put / Get / Query / Delete / BatchGet / BatchWrite snippets on the
// base table, and its access patterns again as PartiQL SELECTs (issue 23); the
// UpdateCommand snippets are in update.test.mjs. Not yet in scope:
// the TransactWriteCommand snippet (GSI queries: seed-indexes.test.mjs). Without the GSIs of
// the seed's table definition - the table below has the seed's PK/SK key schema only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocument,
  GetCommand,
  PutCommand,
  QueryCommand,
  ExecuteStatementCommand,
} from '@aws-sdk/lib-dynamodb';
import { clientConfig, createTable, deleteTableQuietly, uniqueName } from '../support.mjs';

// ---- client setup: the only part that differs from the seed document ----------
const client = new DynamoDBClient(clientConfig());
// DynamoDBDocument is lib-dynamodb's DynamoDBDocumentClient plus the convenience
// methods (docClient.get(...), docClient.query(...)) that the seed's "Queries"
// snippets call; its .send(new XCommand(...)) is the DynamoDBDocumentClient one
// used by the seed's "Operations" snippets.
const docClient = DynamoDBDocument.from(client);
let TABLE_NAME;
// --------------------------------------------------------------------------------

// ---- Helper Functions (seed "lib/db/helpers.ts", TypeScript annotations removed) -
function createUserKey(userId) {
  return {
    PK: `USER#${userId}`,
    SK: 'PROFILE',
  };
}

function createPostKey(userId, timestamp, postId) {
  return {
    PK: `USER#${userId}`,
    SK: `POST#${timestamp}#${postId}`,
  };
}

function parsePostId(sk) {
  const [, , postId] = sk.split('#');
  return postId;
}

// ---- Operations snippets, verbatim ----------------------------------------------

async function createItem(userId, email, name) {
  await docClient.send(new PutCommand({
    TableName: TABLE_NAME,
    Item: {
      PK: `USER#${userId}`,
      SK: 'PROFILE',
      EntityType: 'User',
      Email: email,
      Name: name,
      CreatedAt: new Date().toISOString(),
      UpdatedAt: new Date().toISOString(),
    },
  }));
}

async function readItem(userId) {
  const { Item } = await docClient.send(new GetCommand({
    TableName: TABLE_NAME,
    Key: {
      PK: `USER#${userId}`,
      SK: 'PROFILE',
    },
  }));
  return Item;
}

async function deleteItem(userId) {
  await docClient.send(new DeleteCommand({
    TableName: TABLE_NAME,
    Key: {
      PK: `USER#${userId}`,
      SK: 'PROFILE',
    },
  }));
}

async function queryItems(userId) {
  const { Items } = await docClient.send(new QueryCommand({
    TableName: TABLE_NAME,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
    ExpressionAttributeValues: {
      ':pk': `USER#${userId}`,
      ':sk': 'POST#',
    },
    ScanIndexForward: false,
    Limit: 20,
  }));
  return Items;
}

async function batchGet(userId1, userId2, userId3) {
  const { Responses } = await docClient.send(new BatchGetCommand({
    RequestItems: {
      [TABLE_NAME]: {
        Keys: [
          { PK: `USER#${userId1}`, SK: 'PROFILE' },
          { PK: `USER#${userId2}`, SK: 'PROFILE' },
          { PK: `USER#${userId3}`, SK: 'PROFILE' },
        ],
      },
    },
  }));
  return Responses;
}

async function batchWrite(userId1, userId2) {
  await docClient.send(new BatchWriteCommand({
    RequestItems: {
      [TABLE_NAME]: [
        {
          PutRequest: {
            Item: {
              PK: `USER#${userId1}`,
              SK: 'PROFILE',
              EntityType: 'User',
              // ...
            },
          },
        },
        {
          PutRequest: {
            Item: {
              PK: `USER#${userId2}`,
              SK: 'PROFILE',
              EntityType: 'User',
              // ...
            },
          },
        },
      ],
    },
  }));
}

// ---- "Queries" snippets (base table only), verbatim ------------------------------

async function getUserById(userId) {
  // Get user by ID
  const user = await docClient.get({
    TableName: TABLE_NAME,
    Key: {
      PK: `USER#${userId}`,
      SK: 'PROFILE',
    },
  });
  return user;
}

async function getAllPostsByUser(userId) {
  // Get all posts by user (sorted by timestamp, newest first)
  const posts = await docClient.query({
    TableName: TABLE_NAME,
    KeyConditionExpression: 'PK = :userId AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: {
      ':userId': `USER#${userId}`,
      ':prefix': 'POST#',
    },
    ScanIndexForward: false, // Descending order
  });
  return posts;
}

async function getAllPostsLikedByUser(userId) {
  // Get all posts liked by user
  const likes = await docClient.query({
    TableName: TABLE_NAME,
    KeyConditionExpression: 'PK = :userId AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: {
      ':userId': `USER#${userId}`,
      ':prefix': 'LIKE#POST#',
    },
  });
  return likes;
}

async function checkIfUserLikedPost(userId, postId) {
  // Check if user liked specific post
  const like = await docClient.get({
    TableName: TABLE_NAME,
    Key: {
      PK: `USER#${userId}`,
      SK: `LIKE#POST#${postId}`,
    },
  });
  return like;
}

async function getOrganizationWithAllTeams(orgId) {
  // Get organization with all teams
  const result = await docClient.query({
    TableName: TABLE_NAME,
    KeyConditionExpression: 'PK = :orgId',
    ExpressionAttributeValues: {
      ':orgId': `ORG#${orgId}`,
    },
  });
  return result;
}

// ---- test data following the seed's entity designs --------------------------------

const T0 = 1704067200000; // 2024-01-01T00:00:00Z in ms: 13-digit timestamps sort as strings

async function putPost(userId, i) {
  const timestamp = T0 + i * 86400000;
  const postId = `p${i}`;
  await docClient.send(new PutCommand({
    TableName: TABLE_NAME,
    Item: {
      ...createPostKey(userId, timestamp, postId),
      EntityType: 'Post',
      GSI1PK: `POST#${postId}`,
      GSI1SK: `POST#${postId}`,
      GSI2PK: 'ALL_POSTS',
      GSI2SK: `POST#${timestamp}`,
      PostId: postId,
      Title: `Post title ${i}`,
      Content: `Post content ${i}`,
      CreatedAt: new Date(timestamp).toISOString(),
    },
  }));
}

async function putLike(userId, postId) {
  await docClient.send(new PutCommand({
    TableName: TABLE_NAME,
    Item: {
      PK: `USER#${userId}`,
      SK: `LIKE#POST#${postId}`,
      EntityType: 'Like',
      GSI1PK: `POST#${postId}`,
      GSI1SK: `LIKE#USER#${userId}`,
      PostId: postId,
      UserId: userId,
      CreatedAt: '2024-01-01T00:00:00Z',
    },
  }));
}

describe('seed document snippets', () => {
  const run = uniqueName('run');
  const userId = `${run}-u1`;

  before(async () => {
    TABLE_NAME = uniqueName('seed');
    await createTable(client, TABLE_NAME);
  });
  after(async () => {
    await deleteTableQuietly(client, TABLE_NAME);
    client.destroy();
  });

  test('Create Item / Read Item / Get user by ID / Delete Item', async () => {
    await createItem(userId, 'john@example.com', 'John Doe');
    const item = await readItem(userId);
    assert.equal(item.PK, `USER#${userId}`);
    assert.equal(item.SK, 'PROFILE');
    assert.equal(item.EntityType, 'User');
    assert.equal(item.Email, 'john@example.com');
    assert.equal(item.Name, 'John Doe');
    assert.match(item.CreatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(Object.keys(item).sort(),
      ['CreatedAt', 'Email', 'EntityType', 'Name', 'PK', 'SK', 'UpdatedAt']);

    const user = await getUserById(userId);
    assert.deepEqual(user.Item, item);
    assert.deepEqual(createUserKey(userId), { PK: item.PK, SK: item.SK });

    await deleteItem(userId);
    assert.equal(await readItem(userId), undefined);
    const gone = await getUserById(userId);
    assert.equal(gone.Item, undefined);
  });

  test('Query Items / Get all posts by user: newest first, Limit 20', async () => {
    const uid = `${run}-posts`;
    await createItem(uid, 'p@example.com', 'Poster');
    for (let i = 1; i <= 25; i++) await putPost(uid, i);
    await putLike(uid, 'p3');

    const items = await queryItems(uid);
    // Limit: 20 -> the 20 newest posts, descending by SK (timestamp).
    assert.equal(items.length, 20);
    assert.deepEqual(items.map((it) => parsePostId(it.SK)),
      Array.from({ length: 20 }, (_, k) => `p${25 - k}`));
    assert.ok(items.every((it) => it.EntityType === 'Post'));
    assert.equal(items[0].Title, 'Post title 25');

    const posts = await getAllPostsByUser(uid);
    assert.equal(posts.Count, 25);
    assert.equal(posts.Items.length, 25);
    assert.equal(posts.LastEvaluatedKey, undefined);
    assert.deepEqual(posts.Items.map((it) => it.SK),
      Array.from({ length: 25 }, (_, k) => createPostKey(uid, T0 + (25 - k) * 86400000, `p${25 - k}`).SK));
  });

  test('Likes: get all posts liked by user / check if user liked a post', async () => {
    const uid = `${run}-liker`;
    for (const p of ['p9', 'p1', 'p5']) await putLike(uid, p);
    await createItem(uid, 'l@example.com', 'Liker');
    await putPost(uid, 1);

    const likes = await getAllPostsLikedByUser(uid);
    assert.deepEqual(likes.Items.map((it) => it.PostId), ['p1', 'p5', 'p9']);
    assert.ok(likes.Items.every((it) => it.EntityType === 'Like' && it.UserId === uid));

    const like = await checkIfUserLikedPost(uid, 'p5');
    assert.equal(like.Item.SK, 'LIKE#POST#p5');
    assert.equal(like.Item.GSI1SK, `LIKE#USER#${uid}`);
    const noLike = await checkIfUserLikedPost(uid, 'p2');
    assert.equal(noLike.Item, undefined);
  });

  test('Hierarchical data: get organization with all teams', async () => {
    const orgId = `${run}-org`;
    const put = (Item) => docClient.send(new PutCommand({ TableName: TABLE_NAME, Item }));
    await put({ PK: `ORG#${orgId}`, SK: 'METADATA', EntityType: 'Organization', Name: 'Acme Corp' });
    await put({ PK: `ORG#${orgId}`, SK: 'TEAM#t1', EntityType: 'Team', GSI1PK: 'TEAM#t1',
      GSI1SK: 'TEAM#t1', TeamId: 't1', Name: 'Engineering' });
    await put({ PK: `ORG#${orgId}`, SK: 'MEMBER#u1', EntityType: 'Member', GSI1PK: 'USER#u1',
      GSI1SK: `MEMBER#ORG#${orgId}`, UserId: 'u1', Role: 'Admin' });
    await put({ PK: `ORG#${orgId}x`, SK: 'METADATA', EntityType: 'Organization', Name: 'Other' });

    const result = await getOrganizationWithAllTeams(orgId);
    // Ascending sort-key order: MEMBER#u1 < METADATA < TEAM#t1.
    assert.deepEqual(result.Items.map((it) => it.SK), ['MEMBER#u1', 'METADATA', 'TEAM#t1']);
    assert.deepEqual(result.Items.map((it) => it.EntityType), ['Member', 'Organization', 'Team']);
    assert.equal(result.Count, 3);
  });

  test('Batch Write / Batch Get', async () => {
    const userId1 = `${run}-b1`;
    const userId2 = `${run}-b2`;
    const userId3 = `${run}-b3`; // never written: BatchGet simply omits it
    await batchWrite(userId1, userId2);
    const Responses = await batchGet(userId1, userId2, userId3);
    assert.deepEqual(Object.keys(Responses), [TABLE_NAME]);
    const got = Responses[TABLE_NAME].map((it) => it.PK).sort();
    assert.deepEqual(got, [`USER#${userId1}`, `USER#${userId2}`]);
    for (const it of Responses[TABLE_NAME]) {
      assert.deepEqual(Object.keys(it).sort(), ['EntityType', 'PK', 'SK']);
      assert.equal(it.EntityType, 'User');
    }
  });

  // The seed's access patterns again, written as PartiQL (issue 23): a SELECT
  // whose WHERE fixes the partition key is a Query of that partition, ORDER BY
  // the sort key DESC reads it backwards (developer guide, "PartiQL select
  // statements"). The expected answers are the ones above, from the data the
  // tests write, not the Query forms' answers.
  const select = async (Statement, Parameters, extra = {}) => {
    const items = [];
    let NextToken;
    do {
      const res = await docClient.send(new ExecuteStatementCommand({ Statement, Parameters, NextToken, ...extra }));
      items.push(...res.Items);
      NextToken = res.NextToken;
    } while (NextToken);
    return items;
  };

  test('as PartiQL: get user by ID', async () => {
    const uid = `${run}-pq-user`;
    await createItem(uid, 'q@example.com', 'Quinn');
    const items = await select(`SELECT * FROM "${TABLE_NAME}" WHERE PK = ? AND SK = 'PROFILE'`, [`USER#${uid}`]);
    assert.equal(items.length, 1);
    assert.deepEqual(items[0], await readItem(uid));
  });

  test('as PartiQL: get all posts by user, newest first, pages of 7', async () => {
    const uid = `${run}-pq-posts`;
    await createItem(uid, 'pp@example.com', 'Poster');
    for (let i = 1; i <= 25; i++) await putPost(uid, i);
    await putLike(uid, 'p3');
    const items = await select(
      `SELECT SK, Title FROM "${TABLE_NAME}" WHERE PK = ? AND begins_with(SK, 'POST#') ORDER BY SK DESC`,
      [`USER#${uid}`], { Limit: 7 });
    assert.deepEqual(items.map((it) => it.SK),
      Array.from({ length: 25 }, (_, k) => createPostKey(uid, T0 + (25 - k) * 86400000, `p${25 - k}`).SK));
    assert.equal(items[0].Title, 'Post title 25');
  });

  test('as PartiQL: get all posts liked by user', async () => {
    const uid = `${run}-pq-liker`;
    for (const p of ['p9', 'p1', 'p5']) await putLike(uid, p);
    await putPost(uid, 1);
    const items = await select(`SELECT PostId FROM "${TABLE_NAME}" WHERE PK = ? AND begins_with(SK, 'LIKE#POST#')`, [`USER#${uid}`]);
    assert.deepEqual(items.map((it) => it.PostId), ['p1', 'p5', 'p9']);
  });

  test('as PartiQL: organization with all teams, and its teams only', async () => {
    const orgId = `${run}-pq-org`;
    const put = (Item) => docClient.send(new PutCommand({ TableName: TABLE_NAME, Item }));
    await put({ PK: `ORG#${orgId}`, SK: 'METADATA', EntityType: 'Organization', Name: 'Acme Corp' });
    await put({ PK: `ORG#${orgId}`, SK: 'TEAM#t1', EntityType: 'Team', TeamId: 't1', Name: 'Engineering' });
    await put({ PK: `ORG#${orgId}`, SK: 'MEMBER#u1', EntityType: 'Member', UserId: 'u1', Role: 'Admin' });
    const all = await select(`SELECT SK FROM "${TABLE_NAME}" WHERE PK = ?`, [`ORG#${orgId}`]);
    assert.deepEqual(all.map((it) => it.SK), ['MEMBER#u1', 'METADATA', 'TEAM#t1']);
    const teams = await select(`SELECT Name FROM "${TABLE_NAME}" WHERE PK = ? AND EntityType = 'Team'`, [`ORG#${orgId}`]);
    assert.deepEqual(teams, [{ Name: 'Engineering' }]);
  });
});
