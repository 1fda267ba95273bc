// @aws-sdk/lib-dynamodb DynamoDBDocumentClient: native JS types, queries,
// paginators, batches, deletes and errors as the document client sees them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  NumberValue,
  PutCommand,
  QueryCommand,
  ScanCommand,
  paginateQuery,
  paginateScan,
} from '@aws-sdk/lib-dynamodb';
import { createTable, deleteTableQuietly, expectError, makeClient, uniqueName } from '../support.mjs';

const client = makeClient();
const doc = DynamoDBDocumentClient.from(client);
// Exact numbers: every N comes back as a NumberValue holding the exact string.
// (Its own DynamoDBClient: document clients built from one client share its config.)
const exactBase = makeClient();
const exact = DynamoDBDocumentClient.from(exactBase, { unmarshallOptions: { wrapNumbers: true } });

const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i);
const hex = (u8) => Buffer.from(u8).toString('hex');
const POSTS = [1, 2, 3, 4, 5].map((i) => `POST#2024-01-0${i}T00:00:00Z#p${i}`);

let TABLE;
before(async () => {
  TABLE = uniqueName('doc');
  await createTable(client, TABLE);
});
after(async () => {
  await deleteTableQuietly(client, TABLE);
  client.destroy();
  exactBase.destroy();
});

const put = (Item, extra = {}) => doc.send(new PutCommand({ TableName: TABLE, Item, ...extra }));
const get = (Key, extra = {}, c = doc) => c.send(new GetCommand({ TableName: TABLE, Key, ...extra }));

describe('attribute types', () => {
  const PK = `USER#${uniqueName('u')}`;

  test('all ten types round-trip through the document client', async () => {
    const item = {
      PK, SK: 'TYPES',
      str: 'h\u00e9llo \u2713 \u65e5\u672c \u{1F600}', // S
      empty: '',                                       // empty S is fine outside keys
      num: 8.3, int: 42, neg: -0.5,                   // N
      bin: ALL_BYTES,                                  // B
      yes: true, no: false,                            // BOOL
      nothing: null,                                   // NULL
      map: { a: 'x', n: 1, deep: { l: [1, 'two', null, false] }, emptyMap: {} }, // M
      list: ['a', 2, false, null, [], {}],             // L
      ss: new Set(['b', 'a', 'c']),                    // SS
      ns: new Set([1, 2.5, -3]),                       // NS
      bs: new Set([Uint8Array.of(1), Uint8Array.of(2, 0), Uint8Array.of(0xff)]), // BS
    };
    await put(item);
    const { Item } = await get({ PK, SK: 'TYPES' }, { ConsistentRead: true });
    const { bin, bs, ...rest } = Item;
    const { bin: ebin, bs: ebs, ...erest } = item;
    assert.deepEqual(rest, erest);
    assert.ok(bin instanceof Uint8Array);
    assert.equal(hex(bin), hex(ALL_BYTES));
    assert.ok(bs instanceof Set);
    assert.deepEqual([...bs].map(hex).sort(), [...ebs].map(hex).sort());
    assert.equal(Item.num, 8.3);
  });

  test('numbers are exact (NumberValue, 38 digits)', async () => {
    const nums = {
      a: '8.3',
      big: '12345678901234567890123456789012345678',
      frac: '0.12345678901234567890123456789012345678',
      neg: '-9.9999999999999999999999999999999999999',
    };
    const item = { PK, SK: 'NUMS' };
    for (const [k, v] of Object.entries(nums)) item[k] = NumberValue.from(v);
    item.set = new Set([NumberValue.from(nums.big), NumberValue.from('1')]);
    await put(item);
    const { Item } = await get({ PK, SK: 'NUMS' }, {}, exact);
    for (const [k, v] of Object.entries(nums)) {
      assert.ok(Item[k] instanceof NumberValue, k);
      assert.equal(Item[k].toString(), v, k);
    }
    assert.deepEqual([...Item.set].map(String).sort(), ['1', nums.big]);
    // The default document client turns integers beyond 2^53 into exact BigInts.
    const plain = (await get({ PK, SK: 'NUMS' })).Item;
    assert.equal(plain.big, 12345678901234567890123456789012345678n);
    assert.equal(plain.a, 8.3);
  });

  test('number normalisation: leading and trailing zeroes are trimmed', async () => {
    // Developer guide, Number type: "Leading and trailing zeroes are trimmed."
    await put({ PK, SK: 'NORM', a: NumberValue.from('8.30'), b: NumberValue.from('007'),
      c: NumberValue.from('-0.50') });
    const { Item } = await get({ PK, SK: 'NORM' }, {}, exact);
    assert.deepEqual([Item.a.toString(), Item.b.toString(), Item.c.toString()], ['8.3', '7', '-0.5']);
  });

  test('GetItem with ProjectionExpression and ExpressionAttributeNames', async () => {
    await put({ PK, SK: 'PROJ', Email: 'e@x', Name: 'John Doe', Address: { City: 'Paris', Zip: '1' },
      Tags: ['t0', 't1'], Misc: 1 });
    const { Item } = await get({ PK, SK: 'PROJ' }, {
      ProjectionExpression: 'Email, #n, Address.City, Tags[1]',
      ExpressionAttributeNames: { '#n': 'Name' },
    });
    assert.deepEqual(Item, { Email: 'e@x', Name: 'John Doe', Address: { City: 'Paris' }, Tags: ['t1'] });
  });

  test('missing item: Item is undefined', async () => {
    const out = await get({ PK, SK: 'NOPE' });
    assert.equal(out.Item, undefined);
    assert.equal(out.$metadata.httpStatusCode, 200);
  });
});

describe('query', () => {
  const uid = uniqueName('u');
  const PK = `USER#${uid}`;
  const q = (KeyConditionExpression, values = {}, extra = {}) => doc.send(new QueryCommand({
    TableName: TABLE, KeyConditionExpression,
    ExpressionAttributeValues: { ':pk': PK, ...values }, ...extra,
  }));
  const sks = (out) => out.Items.map((it) => it.SK);

  before(async () => {
    const reqs = POSTS.map((SK, i) => ({ PutRequest: { Item: { PK, SK, EntityType: 'Post',
      PostId: `p${i + 1}`, Title: `Post title ${i + 1}`, LikeCount: (i + 1) * 10 } } }));
    reqs.push({ PutRequest: { Item: { PK, SK: 'PROFILE', EntityType: 'User', Name: 'John' } } });
    reqs.push({ PutRequest: { Item: { PK, SK: 'LIKE#POST#p1', EntityType: 'Like' } } });
    reqs.push({ PutRequest: { Item: { PK: `${PK}0`, SK: 'PROFILE', EntityType: 'User' } } });
    const out = await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: reqs } }));
    assert.deepEqual(out.UnprocessedItems ?? {}, {});
  });

  test('key condition operators', async () => {
    const cases = [
      ['PK = :pk', {}, ['LIKE#POST#p1', ...POSTS, 'PROFILE']],
      ['PK = :pk AND SK = :a', { ':a': POSTS[2] }, [POSTS[2]]],
      ['PK = :pk AND SK < :a', { ':a': POSTS[2] }, ['LIKE#POST#p1', POSTS[0], POSTS[1]]],
      ['PK = :pk AND SK <= :a', { ':a': POSTS[2] }, ['LIKE#POST#p1', ...POSTS.slice(0, 3)]],
      ['PK = :pk AND SK > :a', { ':a': POSTS[2] }, [POSTS[3], POSTS[4], 'PROFILE']],
      ['PK = :pk AND SK >= :a', { ':a': POSTS[2] }, [...POSTS.slice(2), 'PROFILE']],
      ['PK = :pk AND SK BETWEEN :a AND :b', { ':a': POSTS[1], ':b': POSTS[3] }, POSTS.slice(1, 4)],
      ['PK = :pk AND begins_with(SK, :a)', { ':a': 'POST#' }, POSTS],
      ['PK = :pk AND begins_with(SK, :a)', { ':a': 'POST#2024-01-04' }, [POSTS[3]]],
    ];
    for (const [cond, values, expected] of cases) {
      const out = await q(cond, values);
      assert.deepEqual(sks(out), expected, cond);
      assert.equal(out.Count, expected.length, cond);
      assert.equal(out.LastEvaluatedKey, undefined, cond);
    }
  });

  test('ScanIndexForward=false, Select COUNT, ProjectionExpression', async () => {
    const desc = await q('PK = :pk AND begins_with(SK, :p)', { ':p': 'POST#' }, { ScanIndexForward: false });
    assert.deepEqual(sks(desc), [...POSTS].reverse());
    const count = await q('PK = :pk AND begins_with(SK, :p)', { ':p': 'POST#' }, { Select: 'COUNT' });
    assert.equal(count.Count, 5);
    assert.equal(count.ScannedCount, 5);
    assert.equal(count.Items, undefined); // Select=COUNT returns no Items
    const proj = await q('#k = :pk AND begins_with(#s, :p)', { ':p': 'POST#' }, {
      ProjectionExpression: 'PostId, #lc',
      ExpressionAttributeNames: { '#k': 'PK', '#s': 'SK', '#lc': 'LikeCount' },
      ScanIndexForward: false, Limit: 2,
    });
    assert.deepEqual(proj.Items, [{ PostId: 'p5', LikeCount: 50 }, { PostId: 'p4', LikeCount: 40 }]);
    assert.deepEqual(proj.LastEvaluatedKey, { PK, SK: POSTS[3] });
  });

  test('Limit + ExclusiveStartKey pagination, by hand and with paginateQuery', async () => {
    const pages = [];
    let ExclusiveStartKey;
    do {
      const out = await q('PK = :pk AND begins_with(SK, :p)', { ':p': 'POST#' }, { Limit: 2, ExclusiveStartKey });
      pages.push(sks(out));
      ExclusiveStartKey = out.LastEvaluatedKey;
      if (ExclusiveStartKey) assert.deepEqual(ExclusiveStartKey, { PK, SK: out.Items.at(-1).SK });
    } while (ExclusiveStartKey && pages.length < 10);
    assert.deepEqual(pages, [POSTS.slice(0, 2), POSTS.slice(2, 4), POSTS.slice(4)]);

    const seen = [];
    for await (const page of paginateQuery({ client: doc, pageSize: 3 }, {
      TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': PK },
      ScanIndexForward: false,
    })) {
      assert.ok(page.Items.length <= 3);
      seen.push(...sks(page));
    }
    assert.deepEqual(seen, ['PROFILE', ...[...POSTS].reverse(), 'LIKE#POST#p1']);
  });
});

describe('scan', () => {
  const run = uniqueName('s');
  let SCAN_TABLE;
  const N = 37;
  before(async () => {
    SCAN_TABLE = uniqueName('docscan');
    await createTable(client, SCAN_TABLE, { range: null });
    const items = Array.from({ length: N }, (_, i) => ({ PK: `${run}#${i}`, n: i, tag: i % 2 ? 'odd' : 'even' }));
    for (let i = 0; i < N; i += 25) {
      await doc.send(new BatchWriteCommand({
        RequestItems: { [SCAN_TABLE]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }));
    }
  });
  after(() => deleteTableQuietly(client, SCAN_TABLE));

  const scanAll = async (input, pageSize) => {
    const out = [];
    for await (const page of paginateScan({ client: doc, pageSize }, { TableName: SCAN_TABLE, ...input })) {
      if (pageSize) assert.ok(page.Items.length <= pageSize);
      out.push(...page.Items);
    }
    return out;
  };

  test('paginated scan returns every item exactly once', async () => {
    const items = await scanAll({}, 5);
    const keys = items.map((it) => it.PK);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(keys.length, N);
  });

  test('parallel scan segments are disjoint and cover the table', async () => {
    for (const total of [2, 3, 5]) {
      const keys = [];
      for (let seg = 0; seg < total; seg++) {
        const items = await scanAll({ Segment: seg, TotalSegments: total }, 4);
        keys.push(...items.map((it) => it.PK));
      }
      assert.equal(new Set(keys).size, keys.length, `TotalSegments=${total}: item in two segments`);
      assert.equal(keys.length, N, `TotalSegments=${total}`);
    }
  });

  test('Select COUNT and projection', async () => {
    const out = await doc.send(new ScanCommand({ TableName: SCAN_TABLE, Select: 'COUNT' }));
    assert.equal(out.Count, N);
    assert.equal(out.Items, undefined);
    const proj = await doc.send(new ScanCommand({ TableName: SCAN_TABLE, ProjectionExpression: 'n' }));
    assert.deepEqual(proj.Items.map((it) => it.n).sort((a, b) => a - b), Array.from({ length: N }, (_, i) => i));
  });
});

describe('batch and delete', () => {
  const PK = `USER#${uniqueName('u')}`;

  test('BatchWrite 25 puts, BatchGet 100 keys with projection', async () => {
    const items = Array.from({ length: 25 }, (_, i) => ({ PK, SK: `ITEM#${String(i).padStart(3, '0')}`, n: i, s: new Set(['x']) }));
    const w = await doc.send(new BatchWriteCommand({
      RequestItems: { [TABLE]: items.map((Item) => ({ PutRequest: { Item } })) },
    }));
    assert.deepEqual(w.UnprocessedItems ?? {}, {});
    const keys = Array.from({ length: 100 }, (_, i) => ({ PK, SK: `ITEM#${String(i).padStart(3, '0')}` }));
    const g = await doc.send(new BatchGetCommand({
      RequestItems: { [TABLE]: { Keys: keys, ProjectionExpression: 'SK, n' } },
    }));
    assert.deepEqual(g.UnprocessedKeys ?? {}, {});
    const got = g.Responses[TABLE].sort((a, b) => a.n - b.n);
    assert.deepEqual(got, items.map(({ SK, n }) => ({ SK, n })));
  });

  test('BatchWrite limits: more than 25 requests, duplicate keys', async () => {
    const reqs = Array.from({ length: 26 }, (_, i) => ({ PutRequest: { Item: { PK, SK: `BIG#${i}` } } }));
    await expectError(doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: reqs } })), 'ValidationException');
    await expectError(doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: [
      { PutRequest: { Item: { PK, SK: 'DUP' } } }, { DeleteRequest: { Key: { PK, SK: 'DUP' } } },
    ] } })), 'ValidationException', 'Provided list of item keys contains duplicates');
  });

  test('Delete with ReturnValues ALL_OLD', async () => {
    const item = { PK, SK: 'LIKE#POST#p1', EntityType: 'Like', n: 8.3, b: Uint8Array.of(0, 1) };
    await put(item);
    const out = await doc.send(new DeleteCommand({ TableName: TABLE, Key: { PK, SK: item.SK }, ReturnValues: 'ALL_OLD' }));
    assert.deepEqual({ ...out.Attributes, b: hex(out.Attributes.b) }, { ...item, b: '0001' });
    assert.equal((await get({ PK, SK: item.SK })).Item, undefined);
    const again = await doc.send(new DeleteCommand({ TableName: TABLE, Key: { PK, SK: item.SK }, ReturnValues: 'ALL_OLD' }));
    assert.equal(again.Attributes, undefined);
  });

  test('Put with ReturnValues ALL_OLD replaces the whole item', async () => {
    const first = { PK, SK: 'OVER', a: 1, onlyFirst: 'x' };
    const r1 = await put(first, { ReturnValues: 'ALL_OLD' });
    assert.equal(r1.Attributes, undefined);
    const r2 = await put({ PK, SK: 'OVER', a: 2 }, { ReturnValues: 'ALL_OLD' });
    assert.deepEqual(r2.Attributes, first);
    assert.deepEqual((await get({ PK, SK: 'OVER' })).Item, { PK, SK: 'OVER', a: 2 });
  });
});

describe('errors', () => {
  test('missing table: ResourceNotFoundException', async () => {
    const TableName = uniqueName('absent');
    const err = await expectError(doc.send(new GetCommand({ TableName, Key: { PK: 'a', SK: 'b' } })),
      'ResourceNotFoundException', 'Requested resource not found');
    assert.ok(err instanceof ResourceNotFoundException);
    await expectError(doc.send(new PutCommand({ TableName, Item: { PK: 'a', SK: 'b' } })), 'ResourceNotFoundException');
    await expectError(doc.send(new QueryCommand({ TableName, KeyConditionExpression: 'PK = :p',
      ExpressionAttributeValues: { ':p': 'a' } })), 'ResourceNotFoundException');
    await expectError(doc.send(new ScanCommand({ TableName })), 'ResourceNotFoundException');
    await expectError(doc.send(new DeleteCommand({ TableName, Key: { PK: 'a', SK: 'b' } })), 'ResourceNotFoundException');
    await expectError(doc.send(new BatchGetCommand({ RequestItems: { [TableName]: { Keys: [{ PK: 'a', SK: 'b' }] } } })),
      'ResourceNotFoundException');
    await expectError(doc.send(new BatchWriteCommand({ RequestItems: { [TableName]: [{ PutRequest: { Item: { PK: 'a', SK: 'b' } } }] } })),
      'ResourceNotFoundException');
  });

  test('key validation: ValidationException with DynamoDB messages', async () => {
    await expectError(get({ PK: 123, SK: 'PROFILE' }), 'ValidationException',
      'The provided key element does not match the schema');
    await expectError(get({ PK: 'USER#x' }), 'ValidationException',
      'The provided key element does not match the schema');
    await expectError(put({ PK: 'USER#x', Name: 'no sort key' }), 'ValidationException',
      'One or more parameter values were invalid: Missing the key SK in the item');
    await expectError(put({ PK: 1, SK: 'PROFILE' }), 'ValidationException',
      'One or more parameter values were invalid: Type mismatch for key PK expected: S actual: N');
    await expectError(put({ PK: 'USER#x', SK: '' }), 'ValidationException',
      'The AttributeValue for a key attribute cannot contain an empty string value');
  });

  test('expression errors', async () => {
    // Reserved word without a placeholder.
    await expectError(get({ PK: 'a', SK: 'b' }, { ProjectionExpression: 'Name' }), 'ValidationException',
      'reserved keyword');
    // Query without an equality condition on the partition key.
    await expectError(doc.send(new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'SK = :s',
      ExpressionAttributeValues: { ':s': 'x' } })), 'ValidationException', 'Query condition missed key schema element');
  });
});
