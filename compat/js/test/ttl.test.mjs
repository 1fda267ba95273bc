// Time to Live through @aws-sdk/client-dynamodb: settings and expiry by the
// server's sweeper (dynago serve: every 5 s by default). Sources:
// API_UpdateTimeToLive, API_DescribeTimeToLive; messages in docs/research-ttl.md.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DescribeTimeToLiveCommand, GetItemCommand, PutItemCommand, UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTable, deleteTableQuietly, expectError, makeClient, uniqueName } from '../support.mjs';

const client = makeClient();
let table;
before(async () => {
  table = uniqueName('ttl');
  await createTable(client, table, { hash: ['pk', 'S'], range: null });
});
after(async () => {
  await deleteTableQuietly(client, table);
  client.destroy();
});

describe('Time to Live', () => {
  test('UpdateTimeToLive / DescribeTimeToLive', async () => {
    let d = await client.send(new DescribeTimeToLiveCommand({ TableName: table }));
    assert.deepEqual(d.TimeToLiveDescription, { TimeToLiveStatus: 'DISABLED' });
    const r = await client.send(new UpdateTimeToLiveCommand({
      TableName: table, TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    }));
    assert.deepEqual(r.TimeToLiveSpecification, { AttributeName: 'ttl', Enabled: true });
    d = await client.send(new DescribeTimeToLiveCommand({ TableName: table }));
    assert.deepEqual(d.TimeToLiveDescription, { TimeToLiveStatus: 'ENABLED', AttributeName: 'ttl' });
    await expectError(client.send(new UpdateTimeToLiveCommand({
      TableName: table, TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    })), 'ValidationException', 'TimeToLive is already enabled');
  });

  test('an expired item is deleted by the sweep; a future one stays', async () => {
    const now = Math.floor(Date.now() / 1000);
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'old' }, ttl: { N: String(now - 10) } } }));
    await client.send(new PutItemCommand({ TableName: table, Item: { pk: { S: 'new' }, ttl: { N: String(now + 3600) } } }));
    const get = (pk) => client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: pk } }, ConsistentRead: true }));
    const deadline = Date.now() + 30000;
    while ((await get('old')).Item) {
      assert.ok(Date.now() < deadline, 'the expired item was not deleted within 30 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    assert.ok((await get('new')).Item, 'an item that has not expired was deleted');
  });
});
