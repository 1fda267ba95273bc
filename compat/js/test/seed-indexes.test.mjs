// The secondary-index half of the seed document "Designing Dynamodb Tables"
// (/work/shared/seeds/000_*.txt): its table definition with GSI1 and GSI2
// (PAY_PER_REQUEST), created verbatim, and every GSI query snippet of the seed,
// run unmodified through @aws-sdk/lib-dynamodb against the endpoint:
//   get user by email (GSI1), get post by ID (GSI1), recent posts from all users
//   (GSI2, ScanIndexForward false, Limit 20), all users who liked a post (GSI1),
//   all organizations a user is a member of (GSI1).
// The data follows the seed's entity designs (User, Post, Like, Organization,
// Team, Member items). Every expected answer is computed in this file from the
// data it wrote, following DynamoDB's rules: an index holds only the items that
// have all of its key attributes (sparse indexes), Query returns an index
// partition in sort-key order (UTF-8 byte order for S), ProjectionType ALL
// returns whole items, and LastEvaluatedKey of an index query holds the table
// key and the index key of the last item.
//
// GSI reads are eventually consistent in DynamoDB (developer guide, "Read
// consistency"), so reads that follow a write go through eventually(), which
// retries the assertion for a few seconds.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocument,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { clientConfig, deleteTableQuietly, expectError, uniqueName, waitActive } from '../support.mjs';

// ---- client setup: the only part that differs from the seed document ----------
const client = new DynamoDBClient(clientConfig());
// DynamoDBDocument = lib-dynamodb's DynamoDBDocumentClient plus the
// docClient.query(...) / docClient.get(...) methods the seed's snippets call.
const docClient = DynamoDBDocument.from(client);
let TABLE_NAME;
// --------------------------------------------------------------------------------

// ---- "Example GSI Setup", verbatim (evaluated once TABLE_NAME is set) -------------
function seedTableDefinition() {
  const tableDefinition = {
    TableName: TABLE_NAME,
    KeySchema: [
      { AttributeName: 'PK', KeyType: 'HASH' },
      { AttributeName: 'SK', KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [
      { AttributeName: 'PK', AttributeType: 'S' },
      { AttributeName: 'SK', AttributeType: 'S' },
      { AttributeName: 'GSI1PK', AttributeType: 'S' },
      { AttributeName: 'GSI1SK', AttributeType: 'S' },
      { AttributeName: 'GSI2PK', AttributeType: 'S' },
      { AttributeName: 'GSI2SK', AttributeType: 'S' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: 'GSI1',
        KeySchema: [
          { AttributeName: 'GSI1PK', KeyType: 'HASH' },
          { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'GSI2',
        KeySchema: [
          { AttributeName: 'GSI2PK', KeyType: 'HASH' },
          { AttributeName: 'GSI2SK', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
    BillingMode: 'PAY_PER_REQUEST',
  };
  return tableDefinition;
}

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

// ---- GSI "Queries" snippets, verbatim ----------------------------------------------

async function getUserByEmail(email) {
  // Get user by email (using GSI1)
  const user = await docClient.query({
    TableName: TABLE_NAME,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :email',
    ExpressionAttributeValues: {
      ':email': `USER#${email}`,
    },
  });
  return user;
}

async function getPostById(postId) {
  // Get specific post by ID (using GSI1)
  const post = await docClient.query({
    TableName: TABLE_NAME,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :postId',
    ExpressionAttributeValues: {
      ':postId': `POST#${postId}`,
    },
  });
  return post;
}

async function getRecentPosts() {
  // Get recent posts from all users (using GSI2)
  const posts = await docClient.query({
    TableName: TABLE_NAME,
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :allPosts',
    ExpressionAttributeValues: {
      ':allPosts': 'ALL_POSTS',
    },
    ScanIndexForward: false,
    Limit: 20,
  });
  return posts;
}

async function getAllUsersWhoLikedPost(postId) {
  // Get all users who liked a post (using GSI1)
  const likes = await docClient.query({
    TableName: TABLE_NAME,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :postId AND begins_with(GSI1SK, :prefix)',
    ExpressionAttributeValues: {
      ':postId': `POST#${postId}`,
      ':prefix': 'LIKE#USER#',
    },
  });
  return likes;
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

async function getMembershipsOfUser(userId) {
  // Get all organizations a user is member of (using GSI1)
  const memberships = await docClient.query({
    TableName: TABLE_NAME,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :userId AND begins_with(GSI1SK, :prefix)',
    ExpressionAttributeValues: {
      ':userId': `USER#${userId}`,
      ':prefix': 'MEMBER#ORG#',
    },
  });
  return memberships;
}

// ---- Operations snippets used by the index-maintenance test, verbatim -------------

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

async function updateItem(userId, newName) {
  await docClient.send(new UpdateCommand({
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
      ':updatedAt': new Date().toISOString(),
    },
  }));
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

// ---- helpers ---------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Retry an async assertion for up to timeoutMs (GSIs are eventually consistent). */
async function eventually(fn, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof assert.AssertionError) || Date.now() > deadline) throw e;
    }
    await sleep(100);
  }
}

/** DynamoDB orders S keys by their UTF-8 bytes (not by UTF-16 code units). */
const byteCmp = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

const pick = (item, names) => Object.fromEntries(names.filter((n) => n in item).map((n) => [n, item[n]]));

/** Deterministic pseudo-random numbers (mulberry32), so runs are reproducible. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function batchPut(items) {
  for (let i = 0; i < items.length; i += 25) {
    let RequestItems = { [TABLE_NAME]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
    for (let attempt = 0; Object.keys(RequestItems).length > 0; attempt++) {
      assert.ok(attempt < 10, 'BatchWrite kept returning UnprocessedItems');
      const out = await docClient.send(new BatchWriteCommand({ RequestItems }));
      RequestItems = out.UnprocessedItems ?? {};
    }
  }
}

/** Every page of a docClient.query (following LastEvaluatedKey). */
async function queryAll(params) {
  const items = [];
  let ExclusiveStartKey;
  for (let page = 0; ; page++) {
    assert.ok(page < 1000, 'too many pages');
    const out = await docClient.query({ ...params, ExclusiveStartKey });
    items.push(...out.Items);
    ExclusiveStartKey = out.LastEvaluatedKey;
    if (!ExclusiveStartKey) return items;
  }
}

async function scanAll(params) {
  const items = [];
  let ExclusiveStartKey;
  for (let page = 0; ; page++) {
    assert.ok(page < 1000, 'too many pages');
    const out = await docClient.scan({ ...params, ExclusiveStartKey });
    items.push(...out.Items);
    ExclusiveStartKey = out.LastEvaluatedKey;
    if (!ExclusiveStartKey) return items;
  }
}

const tableKey = (it) => `${it.PK}\u0000${it.SK}`;

// ---- the data set, following the seed's entity designs ---------------------------

const T0 = 1704067200000; // 2024-01-01T00:00:00Z in ms: 13-digit timestamps sort as strings
const HOUR = 3600000;

/** Everything the test writes, as plain objects; the expected answers come from here. */
function buildData(run) {
  const rand = rng(0x5eed000);
  const users = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'].map((n, i) => ({
    userId: `${run}-${n}`,
    // Distinct emails whose byte order differs from the user order.
    email: `${['zed', 'Amy', 'amy', 'b\u00e9a', 'bea', 'y'][i]}.${run}@example.com`,
    name: n[0].toUpperCase() + n.slice(1),
  }));
  const userItems = users.map((u) => ({
    ...createUserKey(u.userId),
    EntityType: 'User',
    GSI1PK: `USER#${u.email}`,
    GSI1SK: `USER#${u.email}`,
    Email: u.email,
    Name: u.name,
    CreatedAt: '2024-01-01T00:00:00Z',
    UpdatedAt: '2024-01-01T00:00:00Z',
  }));

  // 30 posts with distinct timestamps, spread over the users in an order that
  // has nothing to do with their age: the hour offsets are a permutation of 0..89.
  const hours = Array.from({ length: 90 }, (_, i) => i);
  for (let i = hours.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [hours[i], hours[j]] = [hours[j], hours[i]];
  }
  const posts = Array.from({ length: 30 }, (_, i) => {
    const timestamp = T0 + hours[i] * HOUR + i; // + i: distinct even within an hour
    const postId = `${run}-post${String(i).padStart(2, '0')}`;
    const author = users[(i * 5) % users.length];
    return { postId, timestamp, userId: author.userId };
  });
  const postItems = posts.map((p, i) => ({
    ...createPostKey(p.userId, p.timestamp, p.postId),
    EntityType: 'Post',
    GSI1PK: `POST#${p.postId}`,
    GSI1SK: `POST#${p.postId}`,
    GSI2PK: 'ALL_POSTS',
    GSI2SK: `POST#${p.timestamp}`,
    PostId: p.postId,
    Title: `Post title ${i}`,
    Content: `Post content ${i}`,
    CreatedAt: new Date(p.timestamp).toISOString(),
  }));

  // Likes: each user likes a pseudo-random subset of the posts; posts 0 and 1 get none.
  const likes = [];
  for (const u of users) {
    for (const p of posts.slice(2)) {
      if (rand() < 0.4) likes.push({ userId: u.userId, postId: p.postId });
    }
  }
  const likeItems = likes.map((l) => ({
    PK: `USER#${l.userId}`,
    SK: `LIKE#POST#${l.postId}`,
    EntityType: 'Like',
    GSI1PK: `POST#${l.postId}`,
    GSI1SK: `LIKE#USER#${l.userId}`,
    PostId: l.postId,
    UserId: l.userId,
    CreatedAt: '2024-01-01T00:00:00Z',
  }));

  // Organizations, teams and members. Member user ids are the users' ids.
  const orgs = ['acme', 'Beta', 'gamma', '\u00e9cole'].map((o) => `${run}-${o}`);
  const orgItems = [];
  const memberships = [];
  orgs.forEach((orgId, oi) => {
    orgItems.push({ PK: `ORG#${orgId}`, SK: 'METADATA', EntityType: 'Organization', Name: `Org ${oi}` });
    for (let t = 0; t < 2; t++) {
      const teamId = `${orgId}-team${t}`;
      orgItems.push({
        PK: `ORG#${orgId}`, SK: `TEAM#${teamId}`, EntityType: 'Team',
        GSI1PK: `TEAM#${teamId}`, GSI1SK: `TEAM#${teamId}`, TeamId: teamId, Name: `Team ${t}`,
      });
    }
    users.forEach((u, ui) => {
      if ((ui + oi) % 3 === 0 || ui === 0) {
        memberships.push({ orgId, userId: u.userId });
        orgItems.push({
          PK: `ORG#${orgId}`, SK: `MEMBER#${u.userId}`, EntityType: 'Member',
          GSI1PK: `USER#${u.userId}`, GSI1SK: `MEMBER#ORG#${orgId}`,
          UserId: u.userId, Role: ui === 0 ? 'Admin' : 'Member',
        });
      }
    });
  });

  const all = [...userItems, ...postItems, ...likeItems, ...orgItems];
  return { users, userItems, posts, postItems, likes, likeItems, orgs, memberships, orgItems, all };
}

// ---- the tests -----------------------------------------------------------------------

describe('seed document GSI access patterns (GSI1, GSI2)', () => {
  const run = uniqueName('r').slice(-12);
  const data = buildData(run);
  let created;       // CreateTable output
  let describedEmpty; // DescribeTable once ACTIVE, before any write

  before(async () => {
    TABLE_NAME = uniqueName('seedgsi');
    created = await client.send(new CreateTableCommand(seedTableDefinition()));
    describedEmpty = await waitActive(client, TABLE_NAME);
    await batchPut(data.all);
    // Both indexes have caught up once they hold every indexed item.
    await eventually(async () => {
      assert.equal((await scanAll({ TableName: TABLE_NAME, IndexName: 'GSI2' })).length, 30);
      assert.equal((await scanAll({ TableName: TABLE_NAME, IndexName: 'GSI1' })).length,
        data.all.filter((it) => 'GSI1PK' in it && 'GSI1SK' in it).length);
    }, 15000);
  });
  after(async () => {
    await deleteTableQuietly(client, TABLE_NAME);
    client.destroy();
  });

  test('CreateTable with the seed table definition: GSI1 and GSI2 are described', async () => {
    const td = created.TableDescription;
    assert.equal(td.TableName, TABLE_NAME);
    assert.equal(td.TableStatus, 'CREATING');
    const gsiShape = (g) => ({ IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection });
    const want = seedTableDefinition().GlobalSecondaryIndexes;
    const byName = (a, b) => a.IndexName.localeCompare(b.IndexName);
    assert.deepEqual([...td.GlobalSecondaryIndexes].sort(byName).map(gsiShape), want);
    // A new table's indexes are created with it: IndexStatus CREATING in the CreateTable answer.
    for (const g of td.GlobalSecondaryIndexes) assert.equal(g.IndexStatus, 'CREATING', g.IndexName);

    const t = describedEmpty;
    assert.equal(t.TableStatus, 'ACTIVE');
    assert.equal(t.BillingModeSummary?.BillingMode, 'PAY_PER_REQUEST');
    assert.deepEqual(
      [...t.AttributeDefinitions].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName)),
      ['GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'PK', 'SK'].map((n) => ({ AttributeName: n, AttributeType: 'S' })));
    assert.equal(t.LocalSecondaryIndexes, undefined);
    const gsis = [...t.GlobalSecondaryIndexes].sort(byName);
    assert.deepEqual(gsis.map(gsiShape), want);
    for (const g of gsis) {
      assert.equal(g.IndexStatus, 'ACTIVE', g.IndexName);
      assert.equal(g.IndexArn, `${t.TableArn}/index/${g.IndexName}`);
      assert.equal(g.ItemCount, 0);
      assert.equal(g.IndexSizeBytes, 0);
      // On-demand: the index's provisioned read/write capacity is reported as 0.
      assert.equal(g.ProvisionedThroughput?.ReadCapacityUnits, 0);
      assert.equal(g.ProvisionedThroughput?.WriteCapacityUnits, 0);
    }
  });

  test('Get user by email (GSI1): exactly the user, whole item', async () => {
    for (const [i, u] of data.users.entries()) {
      const user = await getUserByEmail(u.email);
      assert.deepEqual(user.Items, [data.userItems[i]], u.email);
      assert.equal(user.Count, 1);
      assert.equal(user.ScannedCount, 1);
      assert.equal(user.LastEvaluatedKey, undefined);
    }
    // Keys are case- and byte-exact: 'Amy...' and 'amy...' are different users,
    // 'béa' and 'bea' too, and an unknown email finds nothing.
    const amy = await getUserByEmail(data.users[1].email);
    assert.equal(amy.Items[0].Name, 'Bob');
    const none = await getUserByEmail(`nobody.${run}@example.com`);
    assert.deepEqual(none.Items, []);
    assert.equal(none.Count, 0);
  });

  test('Get specific post by ID (GSI1): the post, and the likes that share its GSI1PK', async () => {
    // Posts 0 and 1 have no likes: the query returns just the post.
    for (const i of [0, 1]) {
      const post = await getPostById(data.posts[i].postId);
      assert.deepEqual(post.Items, [data.postItems[i]]);
      assert.equal(post.Count, 1);
      assert.equal(parsePostId(post.Items[0].SK), data.posts[i].postId);
    }
    // A post with likes: GSI1PK = POST#<postId> is shared by the Like items
    // (GSI1SK LIKE#USER#...), which sort before the post's GSI1SK POST#<postId>.
    const liked = data.posts.slice(2).filter((p) => data.likes.some((l) => l.postId === p.postId));
    assert.ok(liked.length > 5);
    for (const p of liked) {
      const post = await getPostById(p.postId);
      const likers = data.likes.filter((l) => l.postId === p.postId).map((l) => l.userId).sort(byteCmp);
      const expected = [
        ...likers.map((uid) => data.likeItems.find((it) => it.PostId === p.postId && it.UserId === uid)),
        data.postItems[data.posts.indexOf(p)],
      ];
      assert.deepEqual(post.Items, expected, p.postId);
      assert.equal(post.Count, expected.length);
    }
    const none = await getPostById(`${run}-no-such-post`);
    assert.deepEqual(none.Items, []);
  });

  test('Get recent posts from all users (GSI2, newest first, Limit 20), then the next page', async () => {
    const newestFirst = [...data.posts].sort((a, b) => b.timestamp - a.timestamp);
    const itemOf = (p) => data.postItems[data.posts.indexOf(p)];

    const posts = await getRecentPosts();
    assert.equal(posts.Count, 20);
    assert.equal(posts.ScannedCount, 20);
    assert.deepEqual(posts.Items.map((it) => it.PostId), newestFirst.slice(0, 20).map((p) => p.postId));
    assert.deepEqual(posts.Items, newestFirst.slice(0, 20).map(itemOf));
    // Stopped by Limit with more to read: LastEvaluatedKey = table key + index key of the 20th item.
    const last = itemOf(newestFirst[19]);
    assert.deepEqual(posts.LastEvaluatedKey, pick(last, ['PK', 'SK', 'GSI2PK', 'GSI2SK']));

    const rest = await docClient.query({
      TableName: TABLE_NAME,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :allPosts',
      ExpressionAttributeValues: { ':allPosts': 'ALL_POSTS' },
      ScanIndexForward: false,
      Limit: 20,
      ExclusiveStartKey: posts.LastEvaluatedKey,
    });
    assert.deepEqual(rest.Items, newestFirst.slice(20).map(itemOf));
    assert.equal(rest.Count, 10);
    assert.equal(rest.LastEvaluatedKey, undefined);

    // Oldest first (the default direction), paged by 7: all 30 posts, each once.
    const oldestFirst = await queryAll({
      TableName: TABLE_NAME,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :allPosts',
      ExpressionAttributeValues: { ':allPosts': 'ALL_POSTS' },
      Limit: 7,
    });
    assert.deepEqual(oldestFirst.map((it) => it.PostId), [...newestFirst].reverse().map((p) => p.postId));

    // A sort-key range on the index: posts of the first day (GSI2SK < POST#<T0 + 24h>).
    const firstDay = await queryAll({
      TableName: TABLE_NAME,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :p AND GSI2SK < :end',
      ExpressionAttributeValues: { ':p': 'ALL_POSTS', ':end': `POST#${T0 + 24 * HOUR}` },
      ScanIndexForward: false,
    });
    assert.deepEqual(firstDay.map((it) => it.PostId),
      newestFirst.filter((p) => p.timestamp < T0 + 24 * HOUR).map((p) => p.postId));
  });

  test('Likes both ways: posts liked by a user (table), users who liked a post (GSI1)', async () => {
    for (const u of data.users) {
      const likes = await getAllPostsLikedByUser(u.userId);
      const expected = data.likes.filter((l) => l.userId === u.userId).map((l) => l.postId).sort(byteCmp);
      assert.deepEqual(likes.Items.map((it) => it.PostId), expected, u.userId);
      assert.ok(likes.Items.every((it) => it.EntityType === 'Like' && it.UserId === u.userId));
    }
    for (const p of data.posts) {
      const likes = await getAllUsersWhoLikedPost(p.postId);
      const expected = data.likes.filter((l) => l.postId === p.postId).map((l) => l.userId).sort(byteCmp);
      assert.deepEqual(likes.Items.map((it) => it.UserId), expected, p.postId);
      assert.equal(likes.Count, expected.length);
      // Whole Like items (ALL projection), and never the post itself.
      for (const it of likes.Items) {
        assert.deepEqual(it, data.likeItems.find((l) => l.PK === it.PK && l.SK === it.SK));
      }
    }
  });

  test('Organizations a user is a member of (GSI1), and a team by id (GSI1)', async () => {
    for (const u of data.users) {
      const memberships = await getMembershipsOfUser(u.userId);
      const expected = data.memberships.filter((m) => m.userId === u.userId)
        .map((m) => `MEMBER#ORG#${m.orgId}`).sort(byteCmp);
      assert.deepEqual(memberships.Items.map((it) => it.GSI1SK), expected, u.userId);
      assert.deepEqual(memberships.Items.map((it) => it.PK), expected.map((s) => `ORG#${s.slice('MEMBER#ORG#'.length)}`));
      assert.ok(memberships.Items.every((it) => it.EntityType === 'Member' && it.UserId === u.userId
        && it.SK === `MEMBER#${u.userId}`));
      assert.equal(memberships.Count, expected.length);
    }
    // The first user belongs to every organization: 'Beta' < 'acme' < 'gamma' < 'école' in byte order.
    const first = await getMembershipsOfUser(data.users[0].userId);
    assert.deepEqual(first.Items.map((it) => it.PK),
      ['Beta', 'acme', 'gamma', '\u00e9cole'].map((o) => `ORG#${run}-${o}`));
    assert.equal(first.Items[0].Role, 'Admin');

    const teamId = `${data.orgs[2]}-team1`;
    const team = await docClient.query({
      TableName: TABLE_NAME,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :t',
      ExpressionAttributeValues: { ':t': `TEAM#${teamId}` },
    });
    assert.deepEqual(team.Items, data.orgItems.filter((it) => it.TeamId === teamId));
  });

  test('Sparse indexes: Scan of GSI1 / GSI2 returns exactly the items with both index keys', async () => {
    const inGsi1 = data.all.filter((it) => 'GSI1PK' in it && 'GSI1SK' in it);
    const gsi1 = await scanAll({ TableName: TABLE_NAME, IndexName: 'GSI1', Limit: 25 });
    assert.deepEqual(gsi1.map(tableKey).sort(), inGsi1.map(tableKey).sort());
    // Organization items (no GSI1 keys) are absent; GSI2 holds only posts.
    assert.ok(!gsi1.some((it) => it.EntityType === 'Organization'));
    const gsi2 = await scanAll({ TableName: TABLE_NAME, IndexName: 'GSI2' });
    assert.deepEqual(gsi2.map(tableKey).sort(), data.postItems.map(tableKey).sort());
    const count = await docClient.scan({ TableName: TABLE_NAME, IndexName: 'GSI2', Select: 'COUNT' });
    assert.equal(count.Count, 30);
  });

  test('Index maintenance through the seed Operations snippets: put, update, delete', async () => {
    const uid = `${run}-maint`;
    const email = `maint.${run}@example.com`;
    // "Create Item" writes no GSI1PK/GSI1SK: the user is in the table but not in GSI1.
    await createItem(uid, email, 'Maint Tainer');
    assert.deepEqual((await docClient.get({ TableName: TABLE_NAME, Key: createUserKey(uid) })).Item.Email, email);
    await eventually(async () => assert.deepEqual((await getUserByEmail(email)).Items, []));

    // Written per the "User Item" design (with GSI1 keys): found by email.
    const userItem = {
      ...createUserKey(uid), EntityType: 'User', GSI1PK: `USER#${email}`, GSI1SK: `USER#${email}`,
      Email: email, Name: 'Maint Tainer', CreatedAt: '2024-01-01T00:00:00Z', UpdatedAt: '2024-01-01T00:00:00Z',
    };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: userItem }));
    await eventually(async () => assert.deepEqual((await getUserByEmail(email)).Items, [userItem]));

    // "Update Item" (SET Name, UpdatedAt): the ALL projection follows.
    await updateItem(uid, 'New Name');
    await eventually(async () => {
      const { Items } = await getUserByEmail(email);
      assert.equal(Items.length, 1);
      assert.equal(Items[0].Name, 'New Name');
      assert.notEqual(Items[0].UpdatedAt, '2024-01-01T00:00:00Z');
    });

    // Changing the email (the index key) moves the item in GSI1.
    const email2 = `maint2.${run}@example.com`;
    await docClient.update({
      TableName: TABLE_NAME, Key: createUserKey(uid),
      UpdateExpression: 'SET GSI1PK = :k, GSI1SK = :k, Email = :e',
      ExpressionAttributeValues: { ':k': `USER#${email2}`, ':e': email2 },
    });
    await eventually(async () => {
      assert.deepEqual((await getUserByEmail(email)).Items, []);
      assert.deepEqual((await getUserByEmail(email2)).Items.map((it) => it.PK), [`USER#${uid}`]);
    });

    // REMOVE of one index key attribute takes the item out of the index.
    await docClient.update({ TableName: TABLE_NAME, Key: createUserKey(uid), UpdateExpression: 'REMOVE GSI1SK' });
    await eventually(async () => assert.deepEqual((await getUserByEmail(email2)).Items, []));
    await docClient.update({
      TableName: TABLE_NAME, Key: createUserKey(uid), UpdateExpression: 'SET GSI1SK = GSI1PK',
    });
    await eventually(async () => assert.equal((await getUserByEmail(email2)).Count, 1));

    // "Delete Item": gone from the index too.
    await deleteItem(uid);
    await eventually(async () => assert.deepEqual((await getUserByEmail(email2)).Items, []));

    // A new post newer than all others heads the recent posts, and leaves when deleted.
    const ts = T0 + 1000 * HOUR;
    const newPost = {
      ...createPostKey(data.users[3].userId, ts, `${run}-newest`), EntityType: 'Post',
      GSI1PK: `POST#${run}-newest`, GSI1SK: `POST#${run}-newest`, GSI2PK: 'ALL_POSTS', GSI2SK: `POST#${ts}`,
      PostId: `${run}-newest`, Title: 'Newest', Content: 'x', CreatedAt: new Date(ts).toISOString(),
    };
    await docClient.send(new PutCommand({ TableName: TABLE_NAME, Item: newPost }));
    await eventually(async () => {
      const posts = await getRecentPosts();
      assert.equal(posts.Items.length, 20);
      assert.deepEqual(posts.Items[0], newPost);
    });
    await docClient.send(new DeleteCommand({ TableName: TABLE_NAME, Key: pick(newPost, ['PK', 'SK']) }));
    await eventually(async () => {
      const posts = await getRecentPosts();
      assert.notEqual(posts.Items[0].PostId, newPost.PostId);
      assert.equal((await docClient.query({
        TableName: TABLE_NAME, IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :p',
        ExpressionAttributeValues: { ':p': 'ALL_POSTS' }, Select: 'COUNT',
      })).Count, 30);
    });
  });

  test('Index errors: ConsistentRead on a GSI, unknown index, key conditions, index key values', async () => {
    // Developer guide (Read consistency): strongly consistent reads are not supported on GSIs.
    await expectError(docClient.query({
      TableName: TABLE_NAME, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :e',
      ExpressionAttributeValues: { ':e': 'USER#x' }, ConsistentRead: true,
    }), 'ValidationException', 'Consistent reads are not supported on global secondary indexes');
    await expectError(docClient.scan({ TableName: TABLE_NAME, IndexName: 'GSI2', ConsistentRead: true }),
      'ValidationException', 'Consistent reads are not supported on global secondary indexes');
    await expectError(docClient.query({
      TableName: TABLE_NAME, IndexName: 'GSI3', KeyConditionExpression: 'GSI1PK = :e',
      ExpressionAttributeValues: { ':e': 'USER#x' },
    }), 'ValidationException', 'The table does not have the specified index: GSI3');
    // The key condition must name the index's keys, not the table's.
    await expectError(docClient.query({
      TableName: TABLE_NAME, IndexName: 'GSI1', KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `USER#${data.users[0].userId}` },
    }), 'ValidationException', 'Query condition missed key schema element: GSI1PK');
    await expectError(docClient.query({
      TableName: TABLE_NAME, IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :p AND SK = :s',
      ExpressionAttributeValues: { ':p': 'ALL_POSTS', ':s': 'x' },
    }), 'ValidationException');
    // An index key attribute must have the type of its AttributeDefinition...
    await expectError(docClient.put({
      TableName: TABLE_NAME, Item: { PK: `USER#${run}-bad`, SK: 'PROFILE', GSI1PK: 42, GSI1SK: 'x' },
    }), 'ValidationException',
    'One or more parameter values were invalid: Type mismatch for Index Key GSI1PK Expected: S Actual: N IndexName: GSI1');
    // ...and may not be an empty string.
    await expectError(docClient.put({
      TableName: TABLE_NAME, Item: { PK: `USER#${run}-bad`, SK: 'PROFILE', GSI2PK: 'ALL_POSTS', GSI2SK: '' },
    }), 'ValidationException', 'One or more parameter values are not valid. A value specified for a secondary '
      + 'index key is not supported. The AttributeValue for a key attribute cannot contain an empty string value. '
      + 'IndexName: GSI2, IndexKey: GSI2SK');
    // Neither write happened.
    const { Item } = await docClient.get({ TableName: TABLE_NAME, Key: { PK: `USER#${run}-bad`, SK: 'PROFILE' } });
    assert.equal(Item, undefined);
  });
});
