// @aws-sdk/client-dynamodb (low-level AttributeValue shapes): table lifecycle,
// ListTables pagination, exact type round trips, Query/Scan and errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BatchGetItemCommand,
  CreateTableCommand,
  DeleteItemCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  QueryCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  ScanCommand,
  paginateListTables,
} from '@aws-sdk/client-dynamodb';
import {
  batchPutRaw, createTable, deleteTableQuietly, expectError, makeClient, uniqueName, waitActive, waitGone,
} from '../support.mjs';

const client = makeClient();
after(() => client.destroy());

const hex = (u8) => Buffer.from(u8).toString('hex');

describe('table lifecycle', () => {
  test('CreateTable -> DescribeTable -> DeleteTable', async () => {
    const name = uniqueName('life');
    try {
      const created = await client.send(new CreateTableCommand({
        TableName: name, BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }],
      }));
      const td = created.TableDescription;
      // CreateTable "immediately returns a response with a TableStatus of CREATING".
      assert.equal(td.TableStatus, 'CREATING');
      assert.equal(td.TableName, name);
      assert.match(td.TableArn, new RegExp(`^arn:aws:dynamodb:us-east-1:\\d{12}:table/${name}$`));
      assert.ok(td.CreationDateTime instanceof Date);
      assert.ok(Math.abs(td.CreationDateTime.getTime() - Date.now()) < 600000, 'CreationDateTime is now');

      const desc = await waitActive(client, name);
      assert.deepEqual(desc.KeySchema, [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }]);
      assert.deepEqual(desc.AttributeDefinitions.sort((a, b) => a.AttributeName.localeCompare(b.AttributeName)),
        [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }]);
      assert.equal(desc.BillingModeSummary?.BillingMode, 'PAY_PER_REQUEST');
      assert.equal(desc.ItemCount, 0);
      assert.equal(desc.TableArn, td.TableArn);

      const del = await client.send(new DeleteTableCommand({ TableName: name }));
      assert.equal(del.TableDescription.TableName, name);
      // "the table is in the DELETING state until DynamoDB completes the deletion"
      assert.equal(del.TableDescription.TableStatus, 'DELETING');
      await waitGone(client, name);
      const e = await expectError(client.send(new DescribeTableCommand({ TableName: name })),
        'ResourceNotFoundException', 'Requested resource not found');
      assert.ok(e instanceof ResourceNotFoundException);
      await expectError(client.send(new DeleteTableCommand({ TableName: name })), 'ResourceNotFoundException');
    } finally {
      await deleteTableQuietly(client, name);
    }
  });

  test('CreateTable of an existing table: ResourceInUseException', async () => {
    const name = uniqueName('dup');
    try {
      await createTable(client, name, { range: null });
      // "Table already exists: <name>"
      const e = await expectError(client.send(new CreateTableCommand({
        TableName: name, BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
      })), 'ResourceInUseException', 'Table already exists');
      assert.ok(e instanceof ResourceInUseException);
    } finally {
      await deleteTableQuietly(client, name);
    }
  });

  describe('ListTables', () => {
    const prefix = uniqueName('list');
    const names = ['a', 'b', 'c'].map((s) => `${prefix}-${s}`);
    before(async () => {
      for (const n of names) await createTable(client, n, { range: null, wait: false });
      for (const n of names) await waitActive(client, n);
    });
    after(async () => { for (const n of names) await deleteTableQuietly(client, n); });

    test('Limit and ExclusiveStartTableName', async () => {
      let out = await client.send(new ListTablesCommand({ ExclusiveStartTableName: names[0], Limit: 1 }));
      assert.deepEqual(out.TableNames, [names[1]]);
      assert.equal(out.LastEvaluatedTableName, names[1]);
      out = await client.send(new ListTablesCommand({ ExclusiveStartTableName: out.LastEvaluatedTableName, Limit: 1 }));
      assert.deepEqual(out.TableNames, [names[2]]);
      out = await client.send(new ListTablesCommand({ ExclusiveStartTableName: names[0], Limit: 2 }));
      assert.deepEqual(out.TableNames, names.slice(1));
    });

    test('paginateListTables walks every page in ascending order', async () => {
      const all = [];
      for await (const page of paginateListTables({ client, pageSize: 2 }, {})) {
        assert.ok(page.TableNames.length <= 2);
        all.push(...page.TableNames);
      }
      for (const n of names) assert.ok(all.includes(n), n);
      assert.equal(new Set(all).size, all.length);
      assert.deepEqual(all, [...all].sort());
    });
  });
});

describe('items', () => {
  let TABLE;
  before(async () => { TABLE = uniqueName('raw'); await createTable(client, TABLE); });
  after(() => deleteTableQuietly(client, TABLE));
  const PK = { S: `USER#${uniqueName('u')}` };

  test('all ten AttributeValue types round-trip exactly', async () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const item = {
      PK, SK: { S: 'TYPES' },
      s: { S: '\u65e5\u672c \u{1F600}' }, e: { S: '' },
      n: { N: '8.3' }, big: { N: '12345678901234567890123456789012345678' },
      b: { B: all }, eb: { B: new Uint8Array(0) },
      t: { BOOL: true }, f: { BOOL: false }, z: { NULL: true },
      m: { M: { x: { N: '-1.5' }, in: { M: { l: { L: [{ S: 'deep' }, { B: Uint8Array.of(0xff) }] } } } } },
      l: { L: [{ S: 'a' }, { N: '2' }, { NULL: true }, { L: [] }, { M: {} }] },
      ss: { SS: ['b', 'a'] }, ns: { NS: ['1', '2.5', '-3'] }, bs: { BS: [Uint8Array.of(1), Uint8Array.of(2, 0)] },
    };
    await client.send(new PutItemCommand({ TableName: TABLE, Item: item }));
    const { Item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: { PK, SK: { S: 'TYPES' } }, ConsistentRead: true }));
    const norm = (it) => {
      const out = structuredClone(it);
      out.b = hex(it.b.B); out.eb = hex(it.eb.B);
      out.m.M.in.M.l.L[1] = hex(it.m.M.in.M.l.L[1].B);
      out.ss = [...it.ss.SS].sort(); out.ns = [...it.ns.NS].sort(); out.bs = it.bs.BS.map(hex).sort();
      return out;
    };
    assert.deepEqual(norm(Item), norm(item));
    assert.equal(hex(Item.b.B), hex(all));
  });

  test('GetItem projection, DeleteItem ALL_OLD', async () => {
    const Key = { PK, SK: { S: 'DEL' } };
    const item = { ...Key, a: { S: 'x' }, n: { N: '38' }, nested: { M: { keep: { S: 'k' }, drop: { S: 'd' } } } };
    await client.send(new PutItemCommand({ TableName: TABLE, Item: item }));
    const proj = await client.send(new GetItemCommand({ TableName: TABLE, Key, ProjectionExpression: 'a, nested.keep' }));
    assert.deepEqual(proj.Item, { a: { S: 'x' }, nested: { M: { keep: { S: 'k' } } } });
    const del = await client.send(new DeleteItemCommand({ TableName: TABLE, Key, ReturnValues: 'ALL_OLD' }));
    assert.deepEqual(del.Attributes, item);
    const after = await client.send(new GetItemCommand({ TableName: TABLE, Key }));
    assert.equal(after.Item, undefined);
  });

  test('BatchGetItem returns found items only', async () => {
    await batchPutRaw(client, TABLE, [1, 2, 3].map((i) => ({ PK, SK: { S: `B#${i}` }, v: { N: String(i) } })));
    const out = await client.send(new BatchGetItemCommand({ RequestItems: { [TABLE]: {
      Keys: [1, 2, 3, 4].map((i) => ({ PK, SK: { S: `B#${i}` } })),
    } } }));
    assert.deepEqual(out.Responses[TABLE].map((it) => it.v.N).sort(), ['1', '2', '3']);
    assert.deepEqual(out.UnprocessedKeys ?? {}, {});
  });

  test('validation errors', async () => {
    await expectError(client.send(new GetItemCommand({ TableName: TABLE, Key: { PK: { N: '1' }, SK: { S: 'x' } } })),
      'ValidationException', 'The provided key element does not match the schema');
    await expectError(client.send(new PutItemCommand({ TableName: TABLE, Item: { SK: { S: 'x' } } })),
      'ValidationException', 'One or more parameter values were invalid: Missing the key PK in the item');
    await expectError(client.send(new PutItemCommand({ TableName: TABLE, Item: { PK, SK: { S: 'x' }, s: { SS: [] } } })),
      'ValidationException');
    await expectError(client.send(new PutItemCommand({ TableName: TABLE,
      Item: { PK, SK: { S: 'x' }, n: { N: '1234567890123456789012345678901234567891' } } })),
    'ValidationException', '38 significant digits');
  });
});

describe('query and scan (numeric and binary sort keys)', () => {
  let NT; let BT;
  before(async () => {
    NT = uniqueName('nsort'); BT = uniqueName('bsort');
    await createTable(client, NT, { range: ['V', 'N'], wait: false });
    await createTable(client, BT, { range: ['R', 'B'], wait: false });
    await waitActive(client, NT); await waitActive(client, BT);
    await batchPutRaw(client, NT, ['10', '-5', '2.5', '1', '100', '2'].map((v) => ({ PK: { S: 'p' }, V: { N: v } })));
    await batchPutRaw(client, BT, [[0xff], [0x00], [0x80], [0x7f], [0x01], [0xff, 0x00]]
      .map((b) => ({ PK: { S: 'p' }, R: { B: Uint8Array.from(b) } })));
  });
  after(async () => { await deleteTableQuietly(client, NT); await deleteTableQuietly(client, BT); });

  test('Number sort keys sort numerically', async () => {
    const q = async (cond, values = {}, extra = {}) => (await client.send(new QueryCommand({
      TableName: NT, KeyConditionExpression: `PK = :p${cond}`,
      ExpressionAttributeValues: { ':p': { S: 'p' }, ...values }, ...extra,
    }))).Items.map((it) => it.V.N);
    assert.deepEqual(await q(''), ['-5', '1', '2', '2.5', '10', '100']);
    assert.deepEqual(await q(' AND V >= :v', { ':v': { N: '2' } }), ['2', '2.5', '10', '100']);
    assert.deepEqual(await q(' AND V BETWEEN :a AND :b', { ':a': { N: '1' }, ':b': { N: '10' } }, { ScanIndexForward: false }),
      ['10', '2.5', '2', '1']);
    assert.deepEqual(await q(' AND V <= :v', { ':v': { N: '1' } }), ['-5', '1']);
  });

  test('Binary sort keys sort as unsigned bytes', async () => {
    const out = await client.send(new QueryCommand({
      TableName: BT, KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': { S: 'p' } },
    }));
    assert.deepEqual(out.Items.map((it) => hex(it.R.B)), ['00', '01', '7f', '80', 'ff', 'ff00']);
    const bw = await client.send(new QueryCommand({
      TableName: BT, KeyConditionExpression: 'PK = :p AND begins_with(R, :b)',
      ExpressionAttributeValues: { ':p': { S: 'p' }, ':b': { B: Uint8Array.of(0xff) } },
    }));
    assert.deepEqual(bw.Items.map((it) => hex(it.R.B)), ['ff', 'ff00']);
  });

  test('Scan with Limit pagination and parallel segments', async () => {
    const seen = [];
    let ExclusiveStartKey;
    let pages = 0;
    do {
      const out = await client.send(new ScanCommand({ TableName: NT, Limit: 4, ExclusiveStartKey }));
      assert.ok(out.Items.length <= 4);
      seen.push(...out.Items.map((it) => it.V.N));
      ExclusiveStartKey = out.LastEvaluatedKey;
      pages += 1;
    } while (ExclusiveStartKey && pages < 20);
    assert.deepEqual([...seen].sort(), ['-5', '1', '10', '100', '2', '2.5']);

    const segs = [];
    for (let Segment = 0; Segment < 4; Segment++) {
      let key;
      do {
        const out = await client.send(new ScanCommand({ TableName: NT, Segment, TotalSegments: 4, Limit: 2, ExclusiveStartKey: key }));
        segs.push(...out.Items.map((it) => it.V.N));
        key = out.LastEvaluatedKey;
      } while (key);
    }
    assert.deepEqual(segs.sort(), ['-5', '1', '10', '100', '2', '2.5']);
    await expectError(client.send(new ScanCommand({ TableName: NT, Segment: 4, TotalSegments: 4 })), 'ValidationException');
  });
});
